import type { IncomingMessage } from 'node:http';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';

/** The routes that check a secret: the status routes, the control endpoints, the webhook. */
export type AuthEndpoint = 'status' | 'control' | 'webhook';
const ENDPOINTS: readonly AuthEndpoint[] = ['status', 'control', 'webhook'];

/** `ok`: let in; `refused`: a missing or wrong secret (401); `throttled`: too many failures, not even checked (429). */
export type AuthVerdict = 'ok' | 'refused' | 'throttled';

export interface AuthLimits {
  /** Failed attempts a client may make at once before it is throttled. */
  burst: number;
  /** One more attempt is allowed this often (so, past the burst, 60_000 / refillMs a minute). */
  refillMs: number;
  /** Clients remembered at most; past it, the one seen longest ago is forgotten (memory stays bounded). */
  maxClients: number;
  /** At most one log line per endpoint this often; it counts the failures since the last one. */
  logEveryMs: number;
}

export const AUTH_LIMITS: AuthLimits = { burst: 10, refillMs: 6_000, maxClients: 4_096, logEveryMs: 60_000 };

export interface AuthGate {
  /**
   * Checks a request's secret with `verify`, unless its client has used up its failed attempts: then it is refused
   * without a check, so a guesser gets 10 tries a minute whatever its rate. Every failure is counted and logged
   * (throttled). A correct secret is never delayed.
   */
  check(endpoint: AuthEndpoint, request: IncomingMessage, verify: () => boolean): AuthVerdict;
  /** A failure that is counted and logged but never throttled (the webhook: behind an ingress every sender shares one address). */
  failed(endpoint: AuthEndpoint, request: IncomingMessage, reason: string): void;
  /** Seconds until a throttled client may try again (`Retry-After`). */
  retryAfterSeconds(request: IncomingMessage): number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Counts failed authentications (`policy_pool_sync_auth_failures_total`), logs them throttled, and slows each client down. */
export function createAuthGate(options: { registry: Registry; logger: Logger; now?: () => number; limits?: AuthLimits }): AuthGate {
  const { logger, limits = AUTH_LIMITS, now = Date.now } = options;
  const failures = new Counter({
    name: 'policy_pool_sync_auth_failures_total',
    help: 'Requests refused for a missing or wrong token or signature, by endpoint (status, control, webhook).',
    labelNames: ['endpoint'],
    registers: [options.registry],
  });
  const throttled = new Counter({
    name: 'policy_pool_sync_auth_throttled_total',
    help: 'Requests refused unchecked (429) because their client failed to authenticate too often, by endpoint.',
    labelNames: ['endpoint'],
    registers: [options.registry],
  });
  for (const endpoint of ENDPOINTS) {
    failures.inc({ endpoint }, 0);
    throttled.inc({ endpoint }, 0);
  }
  const buckets = new Map<string, Bucket>();
  const unlogged = new Map<AuthEndpoint, { count: number; loggedAt: number }>();

  /** The client's bucket refilled to now, and moved to the end of the map (the most recently seen). */
  const bucket = (client: string): Bucket => {
    const found = buckets.get(client);
    const at = now();
    const tokens = found === undefined ? limits.burst : Math.min(limits.burst, found.tokens + (at - found.at) / limits.refillMs);
    buckets.delete(client);
    const refreshed = { tokens, at };
    buckets.set(client, refreshed);
    if (buckets.size > limits.maxClients) buckets.delete(buckets.keys().next().value as string);
    return refreshed;
  };
  const record = (endpoint: AuthEndpoint, client: string, reason: string) => {
    failures.inc({ endpoint });
    const state = unlogged.get(endpoint) ?? { count: 0, loggedAt: -Infinity };
    state.count += 1;
    unlogged.set(endpoint, state);
    if (now() - state.loggedAt < limits.logEveryMs) return;
    logger.warn({ endpoint, client, reason, failures: state.count }, 'authentication failed');
    state.count = 0;
    state.loggedAt = now();
  };
  return {
    check(endpoint, request, verify) {
      const client = clientOf(request);
      const known = buckets.has(client) ? bucket(client) : null;
      if (known !== null && known.tokens < 1) {
        throttled.inc({ endpoint });
        record(endpoint, client, 'throttled');
        return 'throttled';
      }
      if (verify()) return 'ok';
      (known ?? bucket(client)).tokens -= 1;
      record(endpoint, client, request.headers.authorization === undefined ? 'no Authorization header' : 'wrong token');
      return 'refused';
    },
    failed(endpoint, request, reason) {
      record(endpoint, clientOf(request), reason);
    },
    retryAfterSeconds(request) {
      const found = buckets.get(clientOf(request));
      return found === undefined ? 0 : Math.max(1, Math.ceil(((1 - found.tokens) * limits.refillMs) / 1000));
    },
  };
}

/** The client a request counts against: its IPv4 address, or the /64 network of an IPv6 one (a host holds a whole /64). */
export function clientOf(request: IncomingMessage): string {
  const address = (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address);
  return groups === null ? address : `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] | null {
  const [head = '', tail] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - left.length - right.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return null;
  return [...left, ...Array<string>(missing).fill('0'), ...right];
}
