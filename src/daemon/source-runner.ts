import type { RunCache } from '../api/evidence-cache.js';
import type { PolicyApi } from '../api/types.js';
import type { SourceConfig } from '../config/types.js';
import { createDeclaredCache } from '../declared/index.js';
import { errorMessage, NotLeaderError } from '../errors.js';
import type { Logger } from '../logger.js';
import { passReport, type Notifier } from '../notify/index.js';
import { createFightDetector } from '../operations/fight-detector.js';
import { openPassHistory, type PassHistory } from '../operations/history-file.js';
import type { StateSeal } from '../state-seal.js';
import type { DaemonMetrics } from '../operations/metrics.js';
import { passRecord, resultLabel, type LoopPassEnd, type PassRecord } from '../operations/pass-record.js';
import type { Suspensions } from '../operations/suspensions.js';
import { openSyncWindows } from '../operations/sync-windows.js';
import { createCodeCache, type CodeCache } from '../reconcile.js';
import { count } from '../plural.js';
import { createRedactor, redactValue, type Redact } from '../redact.js';
import { initialStatus, type SourceStatus } from '../operations/source-status.js';
import { openSource, safeErrorMessage, type SourceWatch } from '../source/index.js';
import { createPassWaiters, type PassWaiters } from './pass-waiters.js';
import { startSchedule, type Schedule } from './schedule.js';
import { createSourceLoop, type BackoffOptions, type SourceLoop, type TriggerReason } from './source-loop.js';
import { newPass, runSourcePass, type PassContext, type PassUnderWay, type Reconcile } from './source-pass.js';

export type { Reconcile } from './source-pass.js';

export interface SourceRunnerOptions {
  source: SourceConfig;
  stateDir: string;
  /** What the state dir's files must carry to be read back (state-seal.ts). */
  seal: StateSeal;
  /** Shared by the sources of one organization; kept across passes. @default a cache of this runner's own */
  codeCache?: CodeCache;
  /** The findings of finished runs this source's plans read (the evidence cache). */
  runCache?: RunCache;
  /** Called after each pass to persist what the code cache learnt. */
  saveCodeCache?: () => Promise<void>;
  api: PolicyApi;
  /** Changes applied at once (`api.concurrency`). */
  concurrency: number;
  reconcile: Reconcile;
  metrics: DaemonMetrics;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  backoff?: BackoffOptions;
  watchDebounceMs?: number;
  /** Which sources are suspended (shared by the daemon's sources). @default none is */
  suspensions?: Suspensions;
  /** Told of each pass's start and end. @default none */
  notifier?: Notifier;
  /** The clock of the sync windows and the fight detector. @default the system clock */
  now?: () => Date;
  /** Why the API cannot be reached now (`api-unreachable.ts`): /status says it at once, before the pass ends. @default never said */
  apiProblem?: () => string | null;
  /** The one redactor; each history record goes through it before it is kept. @default one that knows only secrets' shapes */
  redact?: Redact;
  /** Leader election: whether this replica may sync now; a standby takes no trigger. @default always */
  leading?: () => boolean;
}

/** One source in the daemon: its loop, its schedule, its folder watch, and what /status says about it. */
export interface SourceRunner {
  source: SourceConfig;
  /** Starts the folder watch of a local source (once; later calls answer the same promise); resolves once it is ready or could not start. */
  watch(): Promise<void>;
  /** The time between the schedule's first two ticks, or null. */
  periodMs(): number | null;
  trigger(reason: TriggerReason): void;
  /** What /status shows; with `history`, the last passes too, newest first. */
  status(options?: { history?: boolean }): SourceStatus;
  whenIdle(): Promise<void>;
  /** Starts a pass now (even in a closed sync window with `overrideWindow`); resolves with its record once it ended, or null if the daemon stopped first. */
  sync(options: { overrideWindow: boolean }): Promise<PassRecord | null>;
  readonly suspended: boolean;
  /** Takes no trigger but `sync` until resumed, across restarts; the pass under way finishes. */
  suspend(): Promise<void>;
  resume(): Promise<void>;
  /** Stops the schedule and the watch; the pass in flight starts no new change, and its changes under way are awaited. */
  stop(graceMs?: number): Promise<void>;
  /** Leadership lost: the pass in flight is aborted at once, the queued one and any retry dropped. */
  standBy(): Promise<void>;
}

/** What the runner adds to what its passes share: the history, the waiters of `sync`, the suspensions. */
interface RunnerContext extends PassContext {
  redact: Redact;
  history: PassHistory;
  historyWritten: Promise<void>;
  waiters: PassWaiters;
  suspensions: Suspensions | undefined;
  /** `sync --override-window` asked for the next pass to start to apply in a closed window. */
  overrideRequested: boolean;
  /** Since the last pass that did something: when that was last said at info, and the quiet passes since. */
  quiet: { saidAt: number; passes: number } | null;
}

/** How often passes that change nothing are said at info: once per quiet hour; each one is a debug line. */
const QUIET_SAID_EVERY_MS = 60 * 60_000;

export async function startSourceRunner(options: SourceRunnerOptions): Promise<SourceRunner> {
  const { source, metrics } = options;
  const log = options.logger.child({ source: source.name });
  const repo = openSource(source, { stateDir: options.stateDir, env: options.env, logger: log });
  metrics.addSource(source.name);
  const now = options.now ?? (() => new Date());
  const ctx: RunnerContext = {
    source, repo, api: options.api, reconcile: options.reconcile, concurrency: options.concurrency,
    codeCache: options.codeCache ?? createCodeCache(), declaredCache: createDeclaredCache(), saveCodeCache: options.saveCodeCache,
    ...(options.runCache === undefined ? {} : { runCache: options.runCache }),
    notifier: options.notifier, metrics, logger: options.logger, log, env: options.env, now,
    windows: openSyncWindows(source.syncWindows ?? []), fights: createFightDetector(now), status: initialStatus(source),
    current: newPass(), lastWarnings: new Set(), redact: options.redact ?? createRedactor([]),
    history: await openPassHistory(options.stateDir, source.name, log, options.seal), historyWritten: Promise.resolve(), waiters: createPassWaiters(),
    suspensions: options.suspensions, overrideRequested: false, quiet: null,
  };
  metrics.suspended(source.name, ctx.suspensions?.since(source.name) != null);

  const loop: SourceLoop = createSourceLoop({
    name: source.name,
    pass: (trigger, signal, stop) => runSourcePass(ctx, trigger, signal, stop),
    timeoutMs: source.passTimeoutSeconds * 1000,
    ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
    logger: options.logger,
    onPassStart: (trigger) => passStarted(ctx, trigger),
    accepts: (reason) => (options.leading?.() ?? true) && (reason === 'sync' || ctx.suspensions?.since(source.name) == null),
    onPassEnd: (end) => passEnded(ctx, end),
  });

  const schedule: Schedule = startSchedule({ name: source.name, expression: source.schedule, onTick: () => loop.trigger('schedule'), logger: options.logger });
  // The folder watch starts when the daemon starts this source (`watch`), not before it listens: with many sources its
  // set-up is spread with their start-up passes.
  let watch: SourceWatch | null = null;
  let watching: Promise<void> | null = null;
  let stopping = false;
  const startWatch = async (): Promise<void> => {
    try {
      const started = await repo.watch(() => loop.trigger('file-change'), options.watchDebounceMs, (error) => {
        watch = null;
        log.warn({ path: source.path, error: safeErrorMessage(error) }, 'the source folder is no longer watched; only the schedule triggers passes');
      });
      if (stopping) await started?.close();
      else watch = started;
    } catch (error) {
      log.warn({ path: source.path, error: safeErrorMessage(error) }, 'cannot watch the source folder; only the schedule triggers passes');
    }
  };

  return {
    source,
    watch: () => (watching ??= startWatch()),
    periodMs: () => schedule.periodMs(),
    trigger: (reason) => loop.trigger(reason),
    status: (status = {}) => runnerStatus(ctx, loop, schedule, status.history === true, options.apiProblem?.() ?? null),
    whenIdle: () => loop.whenIdle(),
    sync({ overrideWindow }) {
      const ended = ctx.waiters.next();
      // A plain sync coalesced with an override does not cancel it.
      ctx.overrideRequested ||= overrideWindow;
      log.info({ overrideWindow }, 'sync asked for');
      loop.trigger('sync');
      return ended;
    },
    get suspended() {
      return ctx.suspensions?.since(source.name) != null;
    },
    suspend: () => suspend(ctx),
    resume: () => resume(ctx, loop),
    async standBy() {
      await loop.handOver(new NotLeaderError('this replica lost the lease; the pass was handed over (the new leader runs its own)'));
      // What this replica applied while it led, another replica of this deployment may now change: that is no fight.
      ctx.fights.forget();
      ctx.status.fighting = [];
      metrics.fighting(source.name, 0);
    },
    async stop(graceMs) {
      stopping = true;
      await schedule.stop();
      await watching;
      await watch?.close();
      await loop.stop(graceMs);
      ctx.waiters.close();
      await ctx.historyWritten;
    },
  };
}

function passStarted(ctx: RunnerContext, trigger: TriggerReason): void {
  ctx.status.running = true;
  ctx.status.lastTrigger = trigger;
  ctx.current = newPass();
  // The first pass that starts after `sync --override-window` takes the override, whatever its trigger: a sync
  // asked for while another pass is queued is coalesced into that pass, and its waiter gets that pass's record.
  ctx.current.overrideAsked = ctx.overrideRequested;
  ctx.overrideRequested = false;
  ctx.waiters.started();
  // Every pass starts; what it did is said when it ends (and, while it applies, by its progress).
  ctx.log.debug({ trigger }, 'pass started');
}

/** The pass's record: on /status, in the history, to the waiters of `sync`, the notifier, the metrics and the log. */
function passEnded(ctx: RunnerContext, end: LoopPassEnd): void {
  const { status, current, source, redact } = ctx;
  status.running = false;
  status.result = resultLabel(end);
  status.error = end.error === null ? null : redact(errorMessage(end.error));
  const finishedAt = new Date();
  status.lastRunAt = finishedAt.toISOString();
  status.lastPass = redactValue({
    ...passRecord(end, current.startedAt, finishedAt, current.revision, current.outcome, status.error, current.liveDrift),
    ...(current.overrideWindow ? { window: 'overridden' as const } : current.windowClosed ? { window: 'closed' as const } : {}),
  }, redact);
  ctx.historyWritten = ctx.history.add(status.lastPass);
  ctx.waiters.ended(status.lastPass);
  ctx.metrics.passFinished(source.name, status.result, end.durationMs / 1000);
  if (end.handedOver) {
    // No notification: the new leader's pass reports what the repo now needs.
    ctx.log.info({ trigger: end.trigger, durationMs: end.durationMs }, 'pass handed over: this replica lost the lease, the new leader runs its own');
    return;
  }
  ctx.notifier?.passFinished(
    source,
    passReport(source, current.outcome, {
      trigger: end.trigger, revision: current.revision, ok: end.ok, error: status.error, windowClosed: current.windowClosed, overrideWindow: current.overrideWindow,
    }),
  );
  // The pass's own figure: a pass that made no plan has none (the last known one stays on /status).
  const fields = { trigger: end.trigger, result: status.result, durationMs: end.durationMs, revision: status.lastAttemptedRevision, drift: status.lastPass.drift };
  if (end.ok) logFinished(ctx, fields, quietPass(current));
  else {
    ctx.quiet = null;
    ctx.log.warn({ ...fields, error: status.error }, 'pass failed');
  }
}

/** A pass with nothing to do and nothing new to say: no change or error, and no warning the last pass did not have. */
function quietPass(pass: PassUnderWay): boolean {
  const plan = pass.outcome?.sourcePlan.plan ?? null;
  return plan !== null && plan.changes.length === 0 && plan.errors.length === 0 && pass.newWarnings === 0;
}

/**
 * A finished pass at info, unless it is one more quiet pass after the one that said the source is in sync: those are
 * debug lines, and said at info once per quiet hour, so an idle daemon's log stays readable.
 */
function logFinished(ctx: RunnerContext, fields: Record<string, unknown>, quiet: boolean): void {
  const now = ctx.now().getTime();
  if (!quiet || ctx.quiet === null) {
    ctx.quiet = quiet ? { saidAt: now, passes: 0 } : null;
    ctx.log.info(quiet ? { ...fields, inSync: 'passes that change nothing are now said once an hour' } : fields, 'pass finished');
    return;
  }
  ctx.quiet.passes += 1;
  ctx.log.debug(fields, 'pass finished');
  if (now - ctx.quiet.saidAt < QUIET_SAID_EVERY_MS) return;
  ctx.log.info({ passes: ctx.quiet.passes }, `still in sync: ${count(ctx.quiet.passes, 'pass', 'passes')} in the last hour changed nothing`);
  ctx.quiet = { saidAt: now, passes: 0 };
}

/**
 * What /status shows of the source now; with `history`, the last passes too, newest first. An API that cannot be
 * reached (`apiProblem`) is said at once, while the pass that found it is still retrying.
 */
function runnerStatus(ctx: RunnerContext, loop: SourceLoop, schedule: Schedule, history: boolean, apiProblem: string | null): SourceStatus {
  const { source } = ctx;
  const next = [schedule.nextRun()?.getTime(), loop.retryAt].filter((t): t is number => typeof t === 'number');
  const suspendedAt = ctx.suspensions?.since(source.name) ?? null;
  const status: SourceStatus = {
    ...ctx.status, running: loop.running, nextRunAt: suspendedAt !== null || next.length === 0 ? null : new Date(Math.min(...next)).toISOString(),
    suspended: suspendedAt !== null, suspendedAt, syncWindow: source.syncWindows === undefined || source.syncWindows.length === 0 ? null : ctx.windows.state(ctx.now()),
    ...(apiProblem === null ? {} : { apiReached: false, error: apiProblem }),
  };
  if (history) status.history = [...ctx.history.passes];
  return status;
}

async function suspend(ctx: RunnerContext): Promise<void> {
  const name = ctx.source.name;
  try {
    await ctx.suspensions?.suspend(name, ctx.now());
  } catch (error) {
    ctx.metrics.suspended(name, true);
    ctx.log.error({ error: safeErrorMessage(error) }, 'source suspended until the daemon stops, but the suspension could not be saved');
    throw error;
  }
  ctx.metrics.suspended(name, true);
  ctx.log.warn('source suspended: no trigger starts a pass until it is resumed');
}

async function resume(ctx: RunnerContext, loop: SourceLoop): Promise<void> {
  try {
    await ctx.suspensions?.resume(ctx.source.name);
  } catch (error) {
    ctx.log.error({ error: safeErrorMessage(error) }, 'the source stays suspended: its resumption could not be saved');
    throw error;
  }
  ctx.metrics.suspended(ctx.source.name, false);
  ctx.log.info('source resumed');
  loop.trigger('sync');
}
