/** Per-token request counting in fixed one-second windows. */

const WINDOW_MS = 1000;

export interface RateDecision {
  allowed: boolean;
  /** Headers for the response; empty when rate limiting is off. */
  headers: Record<string, string>;
}

export interface RateLimiter {
  take(key: string): RateDecision;
  setLimit(limit: number): void;
  limit(): number;
}

export function createRateLimiter(initialLimit: number, now: () => number): RateLimiter {
  let limit = initialLimit;
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(key): RateDecision {
      if (limit <= 0) return { allowed: true, headers: {} };
      const at = now();
      let window = windows.get(key);
      if (window === undefined || at - window.start >= WINDOW_MS) {
        window = { start: at, count: 0 };
        windows.set(key, window);
      }
      window.count += 1;
      const allowed = window.count <= limit;
      const reset = Math.max(0, window.start + WINDOW_MS - at) / 1000;
      return {
        allowed,
        headers: {
          'x-ratelimit-limit': String(limit),
          'x-ratelimit-remaining': String(Math.max(0, limit - window.count)),
          'x-ratelimit-reset': reset.toFixed(3),
        },
      };
    },
    setLimit(next) {
      limit = next;
      windows.clear();
    },
    limit: () => limit,
  };
}

export const RATE_LIMITED_BODY = {
  errors: [{ detail: "You have exceeded the API's rate limit.", status: 429, title: 'Too many requests' }],
};
