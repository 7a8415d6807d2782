import type { Server } from 'node:http';
import type { Socket } from 'node:net';

interface Held {
  /** When it connected, or last finished a response. */
  since: number;
  /** A request of it is being answered. */
  serving: boolean;
}

/**
 * Caps the server's open connections at `max` without letting slow clients lock the others out: a connection that
 * comes in at the cap takes the place of the one that has waited longest without a request to answer (one still
 * trickling its headers, or idle between keep-alive requests). A health probe sends its request at once, so it is
 * answered however many slow clients hold the rest: with a plain cap (`server.maxConnections`), 200 connections
 * each sending a header line a second turned the probes away and got the pod restarted. Only when every connection is
 * being answered is the newcomer closed.
 */
export function guardConnections(server: Server, max: number, now: () => number = Date.now): void {
  const open = new Map<Socket, Held>();
  server.on('connection', (socket: Socket) => {
    if (open.size >= max) {
      const longest = longestWaiting(open);
      if (longest === null) {
        socket.destroy();
        return;
      }
      open.delete(longest);
      longest.destroy();
    }
    open.set(socket, { since: now(), serving: false });
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (request, response) => {
    const held = open.get(request.socket);
    if (held === undefined) return;
    held.serving = true;
    response.once('close', () => {
      held.serving = false;
      held.since = now();
    });
  });
}

function longestWaiting(open: ReadonlyMap<Socket, Held>): Socket | null {
  let found: Socket | null = null;
  let since = Infinity;
  for (const [socket, held] of open) {
    if (held.serving || held.since >= since) continue;
    found = socket;
    since = held.since;
  }
  return found;
}
