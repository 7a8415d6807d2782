/**
 * Proxies that never let a tunnel through, on loopback: one that takes the connection and never answers (`hang`),
 * one that answers `CONNECT` with 407 (`407`) or 403 (`forbidden`), and a port where nothing listens (`refuse`).
 * Each counts the connections it took, so a test can tell a final failure (one) from retries (more).
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type ConnectProxyMode = 'hang' | 'refuse' | '407' | 'forbidden';

export interface ConnectProxy {
  /** `http://user:password@127.0.0.1:PORT` */
  url: string;
  /** Connections taken (0 for `refuse`). */
  connections(): number;
  /** Sockets open now. */
  open(): number;
  close(): Promise<void>;
}

const ANSWERS: Partial<Record<ConnectProxyMode, string>> = {
  407: 'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n',
  forbidden: 'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n',
};

export async function startConnectProxy(mode: ConnectProxyMode, credentials = 'corp-user:Pr0xyPassw0rd'): Promise<ConnectProxy> {
  const sockets = new Set<Socket>();
  let taken = 0;
  const server: Server = createServer((socket) => {
    taken += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    const answer = ANSWERS[mode];
    // The answer once the request's head is in, the connection left open as a proxy leaves it; `hang` says nothing, for good.
    let head = '';
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (answer === undefined || answered || !head.includes('\r\n\r\n')) return;
      answered = true;
      socket.write(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy();
    server.close(() => resolve());
  });
  // Nothing listens on a port just let go of.
  if (mode === 'refuse') await close();
  return { url: `http://${credentials}@127.0.0.1:${port}`, connections: () => taken, open: () => sockets.size, close: mode === 'refuse' ? () => Promise.resolve() : close };
}
