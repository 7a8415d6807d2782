/**
 * Per-user request counting over one window, a second unless given (a user is a token here). `sliding`, the default and the
 * strictest reading of the service: a request is refused while `limit` requests were let through in
 * the second before it. `fixed`: windows start with the first request after the last window ended.
 * Refused requests do not count.
 */

import type { RateLimitWindow } from './types.js';

const SECOND_MS = 1000;

export interface RateDecision {
  allowed: boolean;
  /** Headers for the response; empty when rate limiting is off. */
  headers: Record<string, string>;
}

export interface RateLimiter {
  take(key: string): RateDecision;
  setLimit(limit: number): void;
  setWindow(window: RateLimitWindow): void;
  limit(): number;
  window(): RateLimitWindow;
}

/** What one key spent: the times of the requests let through that may still count, oldest first. */
type Spent = number[];

/**
 * `reset`: `zero` answers every `x-ratelimit-reset` with 0.0, as in the hosted service's sample answer, whatever the
 * window holds.
 */
export function createRateLimiter(
  initialLimit: number, now: () => number, initialWindow: RateLimitWindow = 'sliding', reset: 'real' | 'zero' = 'real', windowMs = SECOND_MS,
): RateLimiter {
  let limit = initialLimit;
  let window = initialWindow;
  const spent = new Map<string, Spent>();
  return {
    take(key): RateDecision {
      if (limit <= 0) return { allowed: true, headers: {} };
      const at = now();
      const times = spent.get(key) ?? [];
      spent.set(key, times);
      forget(times, at, window, windowMs);
      const allowed = times.length < limit;
      if (allowed) times.push(at);
      // Seconds until the oldest request still counted stops counting: a slot frees (sliding) or the window ends (fixed).
      const seconds = times.length === 0 ? 0 : Math.max(0, (times[0] ?? at) + windowMs - at) / 1000;
      return {
        allowed,
        headers: {
          'x-ratelimit-limit': String(limit),
          'x-ratelimit-remaining': String(Math.max(0, limit - times.length)),
          'x-ratelimit-reset': reset === 'zero' ? '0.0' : seconds.toFixed(3),
        },
      };
    },
    setLimit(next) {
      limit = next;
      spent.clear();
    },
    setWindow(next) {
      window = next;
      spent.clear();
    },
    limit: () => limit,
    window: () => window,
  };
}

/** Drops the requests that no longer count at `at`. At most `limit` times are ever kept. */
function forget(times: Spent, at: number, window: RateLimitWindow, windowMs: number): void {
  const first = times[0];
  if (first === undefined) return;
  if (window === 'fixed') {
    if (at - first >= windowMs) times.length = 0;
    return;
  }
  let expired = 0;
  while (expired < times.length && at - (times[expired] ?? at) >= windowMs) expired += 1;
  if (expired > 0) times.splice(0, expired);
}

/** The run lists' own limit (`run.mdx`, both "List Runs" sections): 30 a minute. */
export const RUN_LIST_WINDOW_MS = 60_000;

/** `GET /workspaces/:id/runs` and `GET /organizations/:org/runs`, which count against their own limit as well. */
export function isRunList(method: string, path: string): boolean {
  return method === 'GET' && /^\/(workspaces|organizations)\/[^/]+\/runs\/?$/.test(path);
}

export const RATE_LIMITED_BODY = {
  errors: [{ detail: "You have exceeded the API's rate limit.", status: 429, title: 'Too many requests' }],
};
