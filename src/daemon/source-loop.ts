import { NotLeaderError } from '../errors.js';
import { RetrySchedule } from '../http/retry.js';
import type { Logger } from '../logger.js';
import { sharedSignal } from '../signals.js';
import { safeErrorMessage } from '../source/index.js';
import type { LoopPassEnd, TriggerReason } from '../operations/pass-record.js';

export type { LoopPassEnd, TriggerReason } from '../operations/pass-record.js';

export interface LoopPassResult {
  ok: boolean;
  /** Why the pass failed, for /status; null when it did not. */
  error?: string | null;
}

export interface BackoffOptions {
  /** @default 5000 */
  initialMs: number;
  /** @default 300000 */
  maxMs: number;
}

export interface SourceLoopOptions {
  name: string;
  /**
   * One pass. Resolves with its result or throws. `signal` aborts when the pass exceeds `timeoutMs`, or when a
   * shutdown's grace time is over: everything the pass awaits ends then. `stop` aborts when a shutdown begins: the
   * pass starts no new change, and finishes those under way.
   */
  pass(trigger: TriggerReason, signal: AbortSignal, stop: AbortSignal): Promise<LoopPassResult>;
  timeoutMs: number;
  backoff?: BackoffOptions;
  logger: Logger;
  onPassStart?(trigger: TriggerReason): void;
  onPassEnd?(end: LoopPassEnd): void;
  /** Whether a trigger is taken; a suspended source takes none but `sync`. @default every trigger */
  accepts?(reason: TriggerReason): boolean;
  now?: () => number;
}

export interface SourceLoop {
  /** Asks for a pass: runs now when idle, else coalesces into exactly one more pass after the running one. */
  trigger(reason: TriggerReason): void;
  readonly running: boolean;
  /** When the back-off retry after a failure is due (ms since the epoch), or null. */
  readonly retryAt: number | null;
  /** Resolves once no pass is running or queued (a pending back-off retry does not count). */
  whenIdle(): Promise<void>;
  /**
   * Takes no more triggers, drops the queued pass and any retry, tells the pass in flight to start no new change, and
   * waits for the changes under way to finish; after `graceMs` (when given) the pass is aborted, and its end awaited.
   */
  stop(graceMs?: number): Promise<void>;
  /**
   * Leadership lost: drops the queued pass and any retry, and aborts the pass in flight at once; it ends `handed over`
   * (no failure, no retry). Resolves once it settled.
   */
  handOver(reason: NotLeaderError): Promise<void>;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 5_000, maxMs: 300_000 };

/**
 * The serialised loop of one source. Passes never overlap: a pass that times out is aborted through its signal
 * and the next one starts only once it has settled. A failed pass is retried after a capped exponential back-off;
 * any new trigger (a commit, a file change, a webhook, a schedule tick) supersedes that wait.
 */
export function createSourceLoop(options: SourceLoopOptions): SourceLoop {
  const log = options.logger.child({ source: options.name });
  /** Set synchronously, so a trigger raised while a pass starts is queued rather than run beside it. */
  let active = false;
  let current: Promise<void> | null = null;
  let queued: TriggerReason | null = null;
  const retry = createRetry(options.backoff ?? DEFAULT_BACKOFF, options.now ?? Date.now, log, () => trigger('retry'));
  let stopped = false;
  /** Aborted when the loop stops: the pass in flight starts no new change. */
  const shutdown = new AbortController();
  /** Aborts the pass in flight (its timeout, or the end of a shutdown's grace time). */
  let inFlight: AbortController | null = null;
  const idleWaiters: (() => void)[] = [];

  function trigger(reason: TriggerReason): void {
    if (stopped) return;
    if (options.accepts?.(reason) === false) {
      log.debug({ trigger: reason }, 'trigger ignored: the source is suspended, or this replica stands by');
      return;
    }
    retry.cancel();
    if (active) {
      if (queued === null) log.debug({ trigger: reason }, 'pass running; one more pass queued');
      queued ??= reason;
      return;
    }
    active = true;
    current = drain(reason);
  }

  async function drain(first: TriggerReason): Promise<void> {
    let next: TriggerReason | null = first;
    let failed = false;
    while (next !== null) {
      const end = await runOnePass(options, log, next, shutdown.signal, (controller) => {
        inFlight = controller;
      });
      // A pass handed over to the new leader is no failure: nothing is retried here.
      failed = !end.ok && !end.handedOver;
      if (!end.handedOver) retry.passEnded(end.ok);
      next = stopped ? null : queued;
      queued = null;
    }
    active = false;
    current = null;
    // A replica that stands by now takes no retry: none is scheduled.
    if (failed && !stopped && options.accepts?.('retry') !== false) retry.schedule();
    for (const resolve of idleWaiters.splice(0)) resolve();
  }

  return {
    trigger,
    get running() {
      return active;
    },
    get retryAt() {
      return retry.at;
    },
    whenIdle() {
      return !active ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
    async handOver(reason) {
      queued = null;
      retry.cancel();
      inFlight?.abort(reason);
      await current;
    },
    async stop(graceMs) {
      stopped = true;
      queued = null;
      retry.cancel();
      shutdown.abort(new Error('the daemon is shutting down'));
      if (current === null) return;
      const endGrace = abortAfterGrace(inFlight, graceMs, log);
      try {
        await current;
      } finally {
        endGrace();
      }
    },
  };
}

/** Runs one pass under its timeout; `onInFlight` is told of the pass's controller, then of its end (null). */
async function runOnePass(
  options: SourceLoopOptions, log: Logger, reason: TriggerReason, stop: AbortSignal, onInFlight: (controller: AbortController | null) => void,
): Promise<LoopPassEnd> {
  const controller = new AbortController();
  sharedSignal(controller.signal);
  onInFlight(controller);
  const now = options.now ?? Date.now;
  const started = now();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    log.warn({ trigger: reason, timeoutSeconds: options.timeoutMs / 1000 }, 'pass timed out; aborting it');
    controller.abort(new Error(`pass timed out after ${options.timeoutMs / 1000} s`));
  }, options.timeoutMs);
  options.onPassStart?.(reason);
  let result: LoopPassResult;
  try {
    result = await options.pass(reason, controller.signal, stop);
  } catch (error) {
    result = { ok: false, error: safeErrorMessage(error) };
  } finally {
    clearTimeout(timer);
    onInFlight(null);
  }
  const handedOver = !result.ok && controller.signal.aborted && controller.signal.reason instanceof NotLeaderError;
  const error = handedOver ? null : timedOut ? `pass timed out after ${options.timeoutMs / 1000} s` : result.ok ? null : (result.error ?? 'pass failed');
  const end: LoopPassEnd = { trigger: reason, ok: result.ok && !timedOut, timedOut, handedOver, error, durationMs: now() - started };
  options.onPassEnd?.(end);
  return end;
}

/** A shutdown's grace time: aborts the pass in flight once it is over; returns what ends the wait. */
function abortAfterGrace(pass: AbortController | null, graceMs: number | undefined, log: Logger): () => void {
  if (graceMs === undefined || pass === null) return () => undefined;
  const grace = setTimeout(() => {
    log.warn({ graceSeconds: graceMs / 1000 }, 'shutdown: the pass in flight did not finish in time; aborting it');
    pass.abort(new Error(`shutdown: the pass was aborted after waiting ${graceMs / 1000} s for it`));
  }, graceMs);
  return () => clearTimeout(grace);
}

/**
 * The back-off retry after a failed pass: due after the wait the one retry engine gives for the failed passes in a row
 * (capped exponential, no jitter, no end), unless cancelled first.
 */
function createRetry(backoff: BackoffOptions, now: () => number, log: Logger, onDue: () => void) {
  const schedule = new RetrySchedule({ ...backoff, jitter: 'none', attempts: Infinity }, () => 0, now);
  /** The wait after the last failed pass; null after a success. */
  let wait: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let at: number | null = null;
  const cancel = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    at = null;
  };
  return {
    /** When it is due (ms since the epoch), or null. */
    get at(): number | null {
      return at;
    },
    /** Counts a pass's end: a failure adds to those in a row, a success clears them. */
    passEnded(ok: boolean): void {
      if (ok) {
        schedule.reset();
        wait = null;
      } else wait = schedule.failure();
    },
    /** Schedules the retry of the failed passes in a row. */
    schedule(): void {
      if (wait === null) return;
      const delay = wait;
      at = now() + delay;
      log.info({ failures: schedule.failures, retryInSeconds: delay / 1000 }, 'pass failed; retrying after back-off');
      timer = setTimeout(() => {
        timer = null;
        at = null;
        onDue();
      }, delay);
    },
    cancel,
  };
}
