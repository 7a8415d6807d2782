/**
 * Loopback servers for the token's tests: a proxy in front of the emulator that can answer in the emulator's place
 * or rewrite its JSON answers (to name other hosts, or to echo the token back), and a recorder on another port,
 * which is another origin, that notes every request it receives.
 */
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface HostileServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  seen: Seen[];
  close(): Promise<void>;
}

export interface HostileRules {
  /** An answer given in the emulator's place; undefined forwards the request. */
  answer?: (seen: Seen) => Answer | undefined;
  /** Rewrites a forwarded JSON answer (the parsed document, changed in place or replaced). */
  rewrite?: (seen: Seen, document: unknown) => unknown;
}

async function serve(handle: (incoming: IncomingMessage, seen: Seen, reply: (answer: Answer) => void) => void): Promise<HostileServer> {
  const seen: Seen[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    const one = { method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers };
    seen.push(one);
    handle(incoming, one, (answer) => {
      outgoing.writeHead(answer.status, answer.headers ?? {});
      outgoing.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Another origin: notes each request and answers `answer` (by default a 200 with a little policy code). */
export function startRecorder(answer: (seen: Seen) => Answer = () => ({ status: 200, body: 'main = rule { true }\n' })): Promise<HostileServer> {
  return serve((incoming, seen, reply) => {
    incoming.resume();
    incoming.on('end', () => reply(answer(seen)));
  });
}

/** The proxy in front of the emulator at `upstreamOrigin`. */
export function startHostileProxy(upstreamOrigin: string, rules: HostileRules): Promise<HostileServer> {
  const upstream = new URL(upstreamOrigin);
  return serve((incoming, seen, reply) => {
    const own = rules.answer?.(seen);
    if (own !== undefined) {
      incoming.resume();
      incoming.on('end', () => reply(own));
      return;
    }
    const forward = request({
      host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url,
      headers: { ...incoming.headers, host: upstream.host },
    }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        let body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [key, value] of Object.entries(answer.headers)) {
          if (typeof value === 'string' && key !== 'content-length' && key !== 'transfer-encoding' && key !== 'connection') headers[key] = value;
        }
        if (rules.rewrite !== undefined && /json/.test(headers['content-type'] ?? '') && body !== '') {
          const document = JSON.parse(body) as unknown;
          body = JSON.stringify(rules.rewrite(seen, document) ?? document);
        }
        reply({ status: answer.statusCode ?? 502, headers, body });
      });
    });
    forward.on('error', () => reply({ status: 502 }));
    incoming.pipe(forward);
  });
}

/** The bearer token a request carried, or null. */
export function bearer(seen: Seen): string | null {
  const value = seen.headers.authorization;
  return typeof value === 'string' && value.startsWith('Bearer ') ? value.slice('Bearer '.length) : null;
}
