/**
 * The Secret API of a Kubernetes API server, as recorded from its reference (kubernetes.io, "Secret v1"): GET, POST
 * and PATCH (JSON merge patch) of /api/v1/namespaces/NS/secrets[/NAME] over HTTPS with a bearer token. No API server
 * can be run on these machines; this loopback server answers with the recorded shapes, and checks what a request must
 * carry (its token, and a merge patch's content type).
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { certificate } from './lease-api.js';

export interface SecretApi {
  /** `https://127.0.0.1:PORT` */
  url: string;
  ca: string;
  /** Every request: method, path, content type and body (the tests check no token text is in a path). */
  requests: { method: string; path: string; contentType: string | undefined; body: string }[];
  /** The Secrets stored, by name: their data, base64 as the API keeps it. */
  secrets: Map<string, { data: Record<string, string> }>;
  close(): Promise<void>;
}

const status = (code: number, reason: string, message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });

export async function startSecretApi(dir: string, options: { namespace: string; token: string }): Promise<SecretApi> {
  const { key, cert } = certificate(dir);
  const secrets: SecretApi['secrets'] = new Map();
  const requests: SecretApi['requests'] = [];
  const base = `/api/v1/namespaces/${options.namespace}/secrets`;
  const server: Server = createServer({ key, cert }, (req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    req.on('end', () => {
      const url = req.url ?? '/';
      requests.push({ method: req.method ?? '', path: url, contentType: req.headers['content-type'], body: text });
      const answer = (code: number, value: unknown) => {
        res.writeHead(code, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (req.headers.authorization !== `Bearer ${options.token}`) return answer(401, status(401, 'Unauthorized', 'Unauthorized'));
      const body = text === '' ? undefined : (JSON.parse(text) as { metadata?: { name?: string }; data?: Record<string, string> });
      const name = url.startsWith(`${base}/`) ? decodeURIComponent(url.slice(base.length + 1)) : null;
      const stored = name === null ? undefined : secrets.get(name);
      const shown = (n: string, s: { data: Record<string, string> }) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: n, namespace: options.namespace }, type: 'Opaque', data: s.data });
      if (req.method === 'GET' && name !== null) return stored === undefined ? answer(404, status(404, 'NotFound', `secrets "${name}" not found`)) : answer(200, shown(name, stored));
      if (req.method === 'POST' && url === base) {
        const made = body?.metadata?.name ?? '';
        if (secrets.has(made)) return answer(409, status(409, 'AlreadyExists', `secrets "${made}" already exists`));
        secrets.set(made, { data: { ...(body?.data ?? {}) } });
        return answer(201, shown(made, secrets.get(made)!));
      }
      if (req.method === 'PATCH' && name !== null) {
        if (req.headers['content-type'] !== 'application/merge-patch+json') return answer(415, status(415, 'UnsupportedMediaType', 'the body of the request was in an unknown format'));
        if (stored === undefined) return answer(404, status(404, 'NotFound', `secrets "${name}" not found`));
        stored.data = { ...stored.data, ...(body?.data ?? {}) };
        return answer(200, shown(name, stored));
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
    secrets,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
