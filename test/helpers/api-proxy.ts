import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

/** How the proxy rewrites a redirect's `Location` to the emulator. */
export type LocationMode = 'relative' | 'other-host';

export interface RecordingProxy {
  /** `http://127.0.0.1:PORT`: the client's base origin. */
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

/**
 * A real loopback reverse proxy in front of the emulator that records the headers of every request
 * it receives. It rewrites redirect targets so the temporary download URL comes back through it,
 * either as a relative Location or on another host name (`localhost` instead of `127.0.0.1`).
 */
export async function startRecordingProxy(upstreamOrigin: string, mode: LocationMode): Promise<RecordingProxy> {
  const upstream = new URL(upstreamOrigin);
  const seen: SeenRequest[] = [];
  let port = 0;
  const server: Server = createServer((incoming, outgoing) => {
    seen.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers });
    const forward = request({
      host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url,
      headers: { ...incoming.headers, host: upstream.host },
    }, (answer) => {
      const headers = { ...answer.headers };
      if (typeof headers.location === 'string') {
        const target = new URL(headers.location, upstreamOrigin);
        headers.location = mode === 'relative' ? `${target.pathname}${target.search}` : `http://localhost:${port}${target.pathname}${target.search}`;
      }
      outgoing.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(outgoing);
    });
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
