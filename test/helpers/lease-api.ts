/**
 * The Lease API of a Kubernetes API server, as recorded from its reference (kubernetes.io, "Lease v1
 * coordination.k8s.io"; client-go's resourcelock/leaselock.go): GET, POST and PUT of
 * /apis/coordination.k8s.io/v1/namespaces/NS/leases[/NAME] over HTTPS with a bearer token. No API server can be run
 * on these machines; this loopback server answers with the recorded shapes, and checks what a request must carry.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

export interface LeaseApi {
  /** `https://127.0.0.1:PORT` */
  url: string;
  /** The CA that signed the server's certificate (the pod's `ca.crt`). */
  ca: string;
  /** Every request: method, path, the Authorization header and the body. */
  requests: { method: string; path: string; authorization: string | undefined; body: unknown }[];
  /** The Lease as stored, or null. */
  lease(): Record<string, any> | null;
  close(): Promise<void>;
}

let made: { key: string; cert: string } | undefined;

/** A self-signed certificate for 127.0.0.1 (an EC key: quick to make), made with openssl in `dir` once per process. */
export function certificate(dir: string): { key: string; cert: string } {
  if (made !== undefined) return made;
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  made = { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  return made;
}

const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, details: { name: 'policy-pool-sync', group: 'coordination.k8s.io', kind: 'leases' }, code });

export async function startLeaseApi(dir: string, options: { namespace: string; token: string }): Promise<LeaseApi> {
  const { key, cert } = certificate(dir);
  let stored: Record<string, any> | null = null;
  let revision = 1000;
  const requests: LeaseApi['requests'] = [];
  const base = `/apis/coordination.k8s.io/v1/namespaces/${options.namespace}/leases`;
  const server: Server = createServer({ key, cert }, (req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const body = text === '' ? undefined : (JSON.parse(text) as Record<string, any>);
      const url = req.url ?? '/';
      requests.push({ method: req.method ?? '', path: url, authorization: req.headers.authorization, body });
      const answer = (code: number, value: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${options.token}`) return answer(401, status(401, 'Unauthorized', 'Unauthorized'));
      const name = url.startsWith(`${base}/`) ? decodeURIComponent(url.slice(base.length + 1)) : null;
      if (req.method === 'GET' && name !== null) {
        if (stored === null || stored.metadata.name !== name) return answer(404, status(404, 'NotFound', `leases.coordination.k8s.io "${name}" not found`));
        return answer(200, stored);
      }
      if (req.method === 'POST' && url === base) {
        if (stored !== null) return answer(409, status(409, 'AlreadyExists', `leases.coordination.k8s.io "${body?.metadata?.name}" already exists`));
        revision += 1;
        stored = { ...body, metadata: { ...body?.metadata, namespace: options.namespace, uid: '6f1c7c1e-0000-4000-8000-000000000001', resourceVersion: String(revision), creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') } };
        return answer(201, stored);
      }
      if (req.method === 'PUT' && name !== null) {
        if (stored === null) return answer(404, status(404, 'NotFound', `leases.coordination.k8s.io "${name}" not found`));
        if (body?.metadata?.resourceVersion !== stored.metadata.resourceVersion) {
          return answer(409, status(409, 'Conflict', `Operation cannot be fulfilled on leases.coordination.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`));
        }
        revision += 1;
        stored = { ...body, metadata: { ...stored.metadata, annotations: body?.metadata?.annotations, resourceVersion: String(revision) } };
        return answer(200, stored);
      }
      return answer(405, status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    ca: cert,
    requests,
    lease: () => stored,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
