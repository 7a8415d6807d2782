import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  /** The absolute URI the client sent (`http://api.invalid/api/v2/...`). */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface ForwardProxy {
  /** `http://127.0.0.1:PORT`, or with `user:password@` when the proxy asks for them. */
  url: string;
  seen: ProxiedRequest[];
  close(): Promise<void>;
}

export interface ForwardProxyOptions {
  /** Host names (`api.invalid`) and the origin each stands for (`http://127.0.0.1:PORT`): they resolve nowhere else. */
  hosts: Record<string, string>;
  /** `Location` headers naming one of these origins are rewritten to the host name standing for it. */
  rewriteLocations?: boolean;
  /** `user:password` the proxy requires in `Proxy-Authorization` (407 otherwise). */
  credentials?: string;
}

/**
 * A plain HTTP forward proxy on loopback, as a company's proxy stands between its network and the outside: it takes
 * absolute-URI requests (`GET http://api.invalid/api/v2/... HTTP/1.1`), records them, and forwards each to the origin
 * its host name stands for. No CONNECT: the tests use http:// URLs.
 */
export async function startForwardProxy(options: ForwardProxyOptions): Promise<ForwardProxy> {
  const seen: ProxiedRequest[] = [];
  const byOrigin = new Map(Object.entries(options.hosts).map(([host, origin]) => [new URL(origin).host, host]));
  const server: Server = createServer((incoming, outgoing) => {
    const target = URL.canParse(incoming.url ?? '') ? new URL(incoming.url ?? '') : null;
    seen.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers });
    if (options.credentials !== undefined && incoming.headers['proxy-authorization'] !== `Basic ${Buffer.from(options.credentials).toString('base64')}`) {
      outgoing.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"' }).end();
      return;
    }
    const upstream = target === null ? undefined : options.hosts[target.hostname];
    if (target === null || upstream === undefined) {
      outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`the proxy cannot reach ${target?.hostname ?? incoming.url}`);
      return;
    }
    const origin = new URL(upstream);
    const headers: Record<string, string | string[] | undefined> = { ...incoming.headers, host: origin.host };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const forward = request({ host: origin.hostname, port: origin.port, method: incoming.method, path: `${target.pathname}${target.search}`, headers }, (answer) => {
      const back = { ...answer.headers };
      if (options.rewriteLocations === true && typeof back.location === 'string') {
        const location = new URL(back.location, upstream);
        const host = byOrigin.get(location.host);
        if (host !== undefined) back.location = `http://${host}${location.pathname}${location.search}`;
      }
      outgoing.writeHead(answer.statusCode ?? 502, back);
      answer.pipe(outgoing);
    });
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.credentials === undefined ? '' : `${options.credentials}@`}127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
