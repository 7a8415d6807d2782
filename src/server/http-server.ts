import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { UsageError } from '../errors.js';
import { parseHostPort, urlHost } from '../host-port.js';
import type { Logger } from '../logger.js';
import type { AuthGate } from './auth-gate.js';
import { carriesStatusToken, STATUS_CHALLENGES } from './authorization.js';
import { isControlPath, type ControlAnswer } from './control.js';
import type { Readiness, SourceStatus } from './status.js';
import { renderStatusPage, STATUS_PAGE_CSP } from './status-page.js';
import { guardConnections } from './connection-guard.js';
import type { WebhookResponse } from './webhook.js';
import type { LeadershipStatus } from './standby.js';

/** Largest webhook body accepted; GitHub caps payloads at 25 MB, pushes are far smaller. */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * What one client may hold of the server. Every route answers small requests, so a client that takes longer is
 * slow or hostile: without these limits, a thousand connections trickling a webhook body took every file
 * descriptor, and the passes then failed to read the declared files.
 */
export const HTTP_LIMITS: HttpLimits = {
  /** Time to send the request line and headers. */
  headersTimeoutMs: 5_000,
  /** Time to send the whole request, body included (GitHub itself gives up on a delivery after 10 s). */
  requestTimeoutMs: 10_000,
  /** How long an idle keep-alive connection stays open between requests. */
  keepAliveTimeoutMs: 5_000,
  /** Connections open at once; past it, a new one replaces the one waiting longest without a request (connection-guard.ts). */
  maxConnections: 128,
  /** How often the two request deadlines are checked. */
  checkIntervalMs: 1_000,
};

export interface HttpLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  checkIntervalMs: number;
}

export interface DaemonRoutes {
  statuses(options?: { history?: boolean }): SourceStatus[];
  readiness(): Readiness;
  registry: Registry;
  webhook(request: IncomingMessage, rawBody: Buffer): WebhookResponse | Promise<WebhookResponse>;
  logger: Logger;
  /** When set, /status and /metrics answer only requests that carry it (see authorization.ts). */
  statusToken: string | null;
  /** Counts, logs and slows failed authentications. */
  gate: AuthGate;
  /** Whether a `Host` header names the daemon (request-origin.ts); the probes and the webhook answer any. */
  hostAllowed(host: string | undefined): boolean;
  /** `POST /sources/<name>/sync|suspend|resume` (control.ts). */
  control?(request: IncomingMessage, url: URL): Promise<ControlAnswer>;
  /** Leader election: who leads, shown on /status; null without it. */
  leadership?(): LeadershipStatus | null;
}

/** The routes that show organization and source names and error text; the probes and the webhook stay open. */
const GUARDED = new Set(['/status', '/status.html', '/', '/metrics']);

/** The routes that answer whatever `Host` they were sent to: kubelet probes by the pod's IP, GitHub through an ingress. */
const ANY_HOST = new Set(['/healthz', '/readyz', '/webhook']);

export interface DaemonServer {
  /** `http://host:port` actually bound (port 0 resolved). */
  origin: string;
  close(): Promise<void>;
}

/** Serves /healthz, /readyz, /metrics, /status and /webhook on `listen` (host:port). */
export async function startDaemonServer(listen: string, routes: DaemonRoutes, limits: HttpLimits = HTTP_LIMITS): Promise<DaemonServer> {
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
    (request, response) => {
      route(request, response, routes).catch((error: unknown) => {
        routes.logger.error({ err: error, path: request.url }, 'HTTP handler failed');
        if (!response.headersSent) send(response, 500, { error: 'internal error' });
      });
    },
  );
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  guardConnections(server, limits.maxConnections);
  const parsed = parseHostPort(listen);
  if (parsed === null) throw new UsageError(`cannot listen on ${listen}: it is not host:port; set LISTEN_ADDRESS (or listen: in the config) to e.g. 127.0.0.1:9090`);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, listen)));
    server.listen(parsed.port, parsed.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const origin = `http://${urlHost(address.address)}:${address.port}`;
  return { origin, close: () => closeServer(server) };
}

/** A failure to listen, saying which setting to change. */
function listenError(error: NodeJS.ErrnoException, listen: string): Error {
  const fix = 'set LISTEN_ADDRESS (or listen: in the config) to a free host:port';
  if (error.code === 'EADDRINUSE') return new UsageError(`cannot listen on ${listen}: the address is in use; ${fix}`);
  if (error.code === 'EACCES') return new UsageError(`cannot listen on ${listen}: permission denied (ports below 1024 need privileges); ${fix}`);
  if (error.code === 'EADDRNOTAVAIL') return new UsageError(`cannot listen on ${listen}: no such address on this machine; ${fix}`);
  return error;
}

async function route(request: IncomingMessage, response: ServerResponse, routes: DaemonRoutes): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://daemon');
  const path = url.pathname;
  const method = request.method ?? 'GET';
  if (!ANY_HOST.has(path) && !routes.hostAllowed(request.headers.host)) {
    request.resume();
    const error = `Host "${request.headers.host ?? ''}" is not a name of this daemon: use its IP address or localhost, or add the name to allowed-hosts in the config`;
    return send(response, 403, { error });
  }
  if (routes.control !== undefined && isControlPath(path)) {
    request.resume();
    const answer = await routes.control(request, url);
    return send(response, answer.status, answer.body, retryAfter(answer.status, request, routes.gate));
  }
  if (path === '/webhook') {
    if (method !== 'POST') return send(response, 405, { error: 'use POST' }, { allow: 'POST' });
    const body = await readBody(request);
    if (body === 'gone') {
      routes.logger.debug({ path }, 'webhook client went away before sending the whole body');
      return;
    }
    if (body === 'too-large') return send(response, 413, { error: `body larger than ${MAX_BODY_BYTES} bytes` });
    const answer = await routes.webhook(request, body);
    return send(response, answer.status, answer.body);
  }
  if (method !== 'GET' && method !== 'HEAD') return send(response, 405, { error: 'use GET' }, { allow: 'GET, HEAD' });
  if (GUARDED.has(path) && routes.statusToken !== null) {
    const token = routes.statusToken;
    const verdict = routes.gate.check('status', request, () => carriesStatusToken(request.headers.authorization, token));
    if (verdict === 'throttled') return send(response, 429, { error: 'too many failed attempts from this address: wait, then send the right token' }, retryAfter(429, request, routes.gate));
    if (verdict === 'refused') {
      response.writeHead(401, { 'content-type': 'application/json; charset=utf-8', 'www-authenticate': STATUS_CHALLENGES });
      response.end(`${JSON.stringify({ error: 'unauthorized: send the status token as Authorization: Bearer <token>' })}\n`);
      return;
    }
  }
  switch (path) {
    case '/healthz':
      return send(response, 200, { status: 'ok' });
    case '/readyz': {
      // Open to anyone who can reach the port, so a status and a word: the reasons are on /status.
      const ready = routes.readiness().ready;
      response.writeHead(ready ? 200 : 503, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(ready ? 'ready\n' : 'unready\n');
      return;
    }
    case '/status': {
      const leadership = routes.leadership?.() ?? null;
      const sources = routes.statuses({ history: ['1', 'true'].includes(url.searchParams.get('history') ?? '') });
      return send(response, 200, leadership === null ? { sources } : { leadership, sources });
    }
    case '/':
    case '/status.html': {
      response.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': STATUS_PAGE_CSP,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
      response.end(method === 'HEAD' ? undefined : renderStatusPage(routes.statuses({ history: true }), new Date(), routes.leadership?.() ?? null));
      return;
    }
    case '/metrics': {
      const text = await routes.registry.metrics();
      response.writeHead(200, { 'content-type': routes.registry.contentType });
      response.end(text);
      return;
    }
    default:
      return send(response, 404, { error: `no route ${path}; try /healthz, /readyz, /metrics, /status, /status.html or POST /webhook` });
  }
}

/** `Retry-After` on a 429 of the gate. */
function retryAfter(status: number, request: IncomingMessage, gate: AuthGate): Record<string, string> {
  return status === 429 ? { 'retry-after': String(gate.retryAfterSeconds(request)) } : {};
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  response.end(`${JSON.stringify(body)}\n`);
}

/**
 * The raw body (signatures are computed over the exact bytes); `too-large` past the cap; `gone` when the client
 * closed the connection, or was cut off by the request deadline, before the end of the body.
 */
async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large' | 'gone'> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > MAX_BODY_BYTES) return 'too-large';
      chunks.push(buffer);
    }
  } catch (error) {
    if (request.destroyed || request.socket.destroyed) return 'gone';
    throw error;
  }
  return request.complete ? Buffer.concat(chunks) : 'gone';
}

/** Time requests in flight get to finish once the server stops listening. */
const CLOSE_GRACE_MS = 2_000;

/** Stops listening, closes idle connections at once and any other after a short grace (a slow client cannot hold it open). */
function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
    server.close(() => {
      clearTimeout(grace);
      resolve();
    });
    server.closeIdleConnections();
  });
}
