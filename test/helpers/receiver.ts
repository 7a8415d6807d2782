import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';

/** One request a receiver got. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON. */
  json: any;
}

/** How the receiver answers a request: a status (with headers), `hang` (never answers), or `drop` (closes the connection). */
export type Answer = number | 'hang' | 'drop' | { status: number; headers: Record<string, string> };

export interface TestReceiver {
  url: string;
  received: Received[];
  /** Requests that got a 2xx answer. */
  accepted(): Received[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback that records every request, answering each with the next of `answers` (the last
 * one repeats; default 200). Closed when the test ends.
 */
export async function startReceiver(t: TestContext, answers: Answer[] = [200]): Promise<TestReceiver> {
  const received: Received[] = [];
  const statuses = new Map<Received, number>();
  let index = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = undefined;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const entry: Received = { method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, json };
      received.push(entry);
      const answer = answers[Math.min(index, answers.length - 1)] ?? 200;
      index += 1;
      if (answer === 'hang') return;
      if (answer === 'drop') return request.socket.destroy();
      const status = typeof answer === 'number' ? answer : answer.status;
      statuses.set(entry, status);
      response.writeHead(status, { 'content-type': 'application/json', ...(typeof answer === 'number' ? {} : answer.headers) }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  t.after(close);
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    accepted: () => received.filter((r) => (statuses.get(r) ?? 0) >= 200 && (statuses.get(r) ?? 0) < 300),
    close,
  };
}
