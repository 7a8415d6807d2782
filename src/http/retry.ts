/**
 * The one retry engine of outgoing HTTP (the API's transport, notifications, the pull-request comment) and of the
 * daemon's failed passes: one capped exponential back-off with jitter, and `Retry-After` read once.
 */

/** Time as the retries see it; the API's `Clock` is one. */
export interface RetryClock {
  /** Resolves after `ms`; rejects with the signal's reason once it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1), for jitter. */
  random(): number;
}

export interface Backoff {
  /** The wait before the second try. */
  initialMs: number;
  /** The most a wait grows to. */
  maxMs: number;
  /** `half`: half the wait fixed, half random (so clients that failed together do not retry together); `none`: exact. */
  jitter: 'half' | 'none';
}

/** The longest wait a `Retry-After` can impose: a broken or hostile server cannot stall a client for longer. */
export const MAX_RETRY_AFTER_MS = 60_000;

/** The wait after `failures` failed tries in a row (1 for the first): `initialMs` doubling up to `maxMs`, with jitter. */
export function backoffDelay(failures: number, backoff: Backoff, random: number): number {
  const ceiling = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, failures - 1));
  return backoff.jitter === 'none' ? ceiling : ceiling / 2 + (random * ceiling) / 2;
}

/**
 * The wait a `Retry-After` header asks for, in ms, or null when there is none or it cannot be read: delay seconds
 * (`120`), or an HTTP date, counted from the answer's own `Date` header when it has one (so the two clocks need not
 * agree), else from `nowMs` (wall-clock epoch ms). Clamped to 0..MAX_RETRY_AFTER_MS.
 */
export function retryAfterMs(headers: Record<string, string>, nowMs: number): number | null {
  const value = headers['retry-after']?.trim();
  if (value === undefined || value === '') return null;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(value)) ms = Number(value) * 1000;
  else {
    const at = Date.parse(value);
    if (Number.isNaN(at)) return null;
    const sent = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
    ms = at - (Number.isNaN(sent) ? nowMs : sent);
  }
  return Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS);
}

/** Statuses whose `Retry-After` is honoured: too many requests, and a service that is down for a while. */
export function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}

/** An answer worth trying again: 429 and 5xx. */
export function retryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

/** What one try came to: done, or worth another try (`giveUp`: the result, or the error thrown, when none is left). */
export type TryOutcome<T> =
  | { done: T }
  | { reason: string; status?: number; headers?: Record<string, string>; giveUp: () => T };

export interface RetryPolicy extends Backoff {
  /** Tries in all, the first included. */
  attempts: number;
}

export interface RetryOptions {
  /** Once it aborts, no further try is made. */
  signal?: AbortSignal;
  /** Hears of each wait before a further try. */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number }) => void;
  /** Wall-clock epoch ms, for a `Retry-After` date. @default Date.now */
  wallNow?: () => number;
}

/**
 * Runs `once` until it is done or `policy.attempts` tries are spent, waiting between tries what the `Retry-After` of
 * a 429 or 503 asks, else the back-off. The last try's `giveUp` decides what a failure returns or throws.
 */
export async function withRetries<T>(once: (attempt: number) => Promise<TryOutcome<T>>, policy: RetryPolicy, clock: RetryClock, options: RetryOptions = {}): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await once(attempt);
    if ('done' in outcome) return outcome.done;
    if (attempt >= policy.attempts || options.signal?.aborted === true) return outcome.giveUp();
    const asked = outcome.status !== undefined && honoursRetryAfter(outcome.status) && outcome.headers !== undefined
      ? retryAfterMs(outcome.headers, (options.wallNow ?? Date.now)())
      : null;
    const delayMs = asked ?? backoffDelay(attempt, policy, clock.random());
    options.onRetry?.({ attempt, reason: outcome.reason, delayMs });
    try {
      await clock.sleep(delayMs, options.signal);
    } catch {
      return outcome.giveUp();
    }
  }
}
