/** The rate-limit headers of one response, read leniently and clamped: a broken or hostile server cannot stall or flood the client. */

/** Rate-limit headers of one response, already parsed. */
export interface RateLimitHeaders {
  /** Requests per second; at least 1. */
  limit: number | null;
  /** Requests left in the server's window; 0 to `limit`. */
  remaining: number | null;
  /** Seconds until the server's window frees a slot; 0 to 60. */
  resetSeconds: number | null;
}

/** The longest wait a server's `x-ratelimit-reset` can impose. */
export const MAX_RESET_SECONDS = 60;

export function readRateLimitHeaders(headers: Record<string, string>): RateLimitHeaders {
  const limit = numberOrNull(headers['x-ratelimit-limit']);
  const remaining = numberOrNull(headers['x-ratelimit-remaining']);
  const reset = numberOrNull(headers['x-ratelimit-reset']);
  const clampedLimit = limit === null ? null : Math.max(1, limit);
  return {
    limit: clampedLimit,
    remaining: remaining === null ? null : Math.min(Math.max(0, remaining), clampedLimit ?? Infinity),
    resetSeconds: reset === null ? null : Math.min(Math.max(0, reset), MAX_RESET_SECONDS),
  };
}

function numberOrNull(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : null;
}
