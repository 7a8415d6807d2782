/**
 * The one retry engine: `RetrySchedule` decides every wait between tries (capped exponential back-off with jitter, a
 * `Retry-After` when the answer asks one, a number of tries and a time budget), and `withRetries` is its loop. The
 * API's transport keeps its own loop around a schedule (each try goes through its queue and pacer, a 429 waits for the
 * pacer, a lost create is looked up before it is sent again), notifications and the pull-request comment run
 * `withRetries`, and the daemon schedules the retry of a failed pass with one. `Retry-After` is read here only.
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
  /** Tries in all, the first included; Infinity for no bound but the budget. */
  attempts: number;
  /** How long after the first failure in a row another try may still start. @default Infinity */
  budgetMs?: number;
}

/**
 * The waits of one thing tried again and again (a request, a source's passes): how many tries failed in a row, since
 * when, and how long to wait before the next try, or that none is left.
 */
export class RetrySchedule {
  private failed = 0;
  private since: number | null = null;

  /** `random`: in [0, 1), for the jitter; `now`: monotonic or wall-clock ms, for the budget. */
  constructor(private readonly policy: RetryPolicy, private readonly random: () => number, private readonly now: () => number = Date.now) {}

  /** Tries failed in a row. */
  get failures(): number {
    return this.failed;
  }

  /** What is left of the budget, in ms: Infinity before the first failure in a row, or with no budget. */
  get budgetLeftMs(): number {
    return this.since === null ? Infinity : (this.policy.budgetMs ?? Infinity) - (this.now() - this.since);
  }

  /** Since the first failure in a row, in ms; 0 before one. */
  get failingForMs(): number {
    return this.since === null ? 0 : this.now() - this.since;
  }

  /**
   * Records a failed try and returns the wait before the next one: `askedMs` (what the answer asked, a `Retry-After`)
   * when given, else the back-off of this many failures, cut to what is left of the budget; null when no try is
   * left (the tries or the budget are spent).
   */
  failure(askedMs: number | null = null): number | null {
    const now = this.now();
    this.since ??= now;
    this.failed += 1;
    const left = (this.policy.budgetMs ?? Infinity) - (now - this.since);
    if (this.failed >= this.policy.attempts || left <= 0) return null;
    return Math.min(left, askedMs ?? backoffDelay(this.failed, this.policy, this.random()));
  }

  /** A try succeeded: the next failure is the first again. */
  reset(): void {
    this.failed = 0;
    this.since = null;
  }
}

/** What a `Retry-After` of this answer asks, for the statuses that honour it (429, 503); null otherwise. */
export function askedWait(status: number | undefined, headers: Record<string, string> | undefined, wallNow: number): number | null {
  return status !== undefined && headers !== undefined && honoursRetryAfter(status) ? retryAfterMs(headers, wallNow) : null;
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
  const wallNow = options.wallNow ?? Date.now;
  const schedule = new RetrySchedule(policy, () => clock.random(), wallNow);
  for (let attempt = 1; ; attempt += 1) {
    const outcome = await once(attempt);
    if ('done' in outcome) return outcome.done;
    if (options.signal?.aborted === true) return outcome.giveUp();
    const delayMs = schedule.failure(askedWait(outcome.status, outcome.headers, wallNow()));
    if (delayMs === null) return outcome.giveUp();
    options.onRetry?.({ attempt, reason: outcome.reason, delayMs });
    try {
      await clock.sleep(delayMs, options.signal);
    } catch {
      return outcome.giveUp();
    }
  }
}
