import type { PolicyApi } from '../api/types.js';
import { NOT_STARTED } from '../apply/apply.js';
import type { SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { createDeclaredCache } from '../declared/index.js';
import { sourceErrors } from '../output/index.js';
import { ProgressReporter } from '../progress.js';
import { createCodeCache, type CodeCache, type PassOutcome, type PassRequest } from '../reconcile.js';
import { openPassSession } from '../session.js';
import { openSource, safeErrorMessage, type Checkout, type SourceWatch } from '../source/index.js';
import type { DaemonMetrics } from './metrics.js';
import { startSchedule, type Schedule } from './schedule.js';
import { createSourceLoop, type BackoffOptions, type LoopPassResult, type SourceLoop, type TriggerReason } from './source-loop.js';
import { passRecord, resultLabel, type PassRecord } from './pass-record.js';
import { initialStatus, type SourceStatus } from './status.js';
import { createFightDetector, fightWarning } from './fight-detector.js';
import { declaredUnchanged, passReport, type Notifier } from '../notify/index.js';
import { openPassHistory } from './history-file.js';
import { createPassWaiters } from './pass-waiters.js';
import type { Suspensions } from './suspensions.js';
import { openSyncWindows } from './sync-windows.js';
import { readPoolHealth } from './pool-health.js';
import { warnIfUnreachable } from './api-unreachable.js';
import { errorMessage } from '../errors.js';
import { createRedactor, redactValue, type Redact } from '../redact.js';

/** `runPass` in production; tests pass their own to see which trigger started each pass. */
export type Reconcile = (request: PassRequest, trigger: TriggerReason) => Promise<PassOutcome>;

export interface SourceRunnerOptions {
  source: SourceConfig;
  stateDir: string;
  /** Shared by the sources of one organization; kept across passes. @default a cache of this runner's own */
  codeCache?: CodeCache;
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
  /** The API's URL (`api.url`), checked after a pass that did not reach the API. @default not checked */
  apiUrl?: string;
  /** The one redactor; each history record goes through it before it is kept. @default one that knows only secrets' shapes */
  redact?: Redact;
  /** Leader election: whether this replica may sync now; a standby takes no trigger. @default always */
  leading?: () => boolean;
}

/** One source in the daemon: its loop, its schedule, its folder watch, and what /status says about it. */
export interface SourceRunner {
  source: SourceConfig;
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

export async function startSourceRunner(options: SourceRunnerOptions): Promise<SourceRunner> {
  const { source, metrics } = options;
  const log = options.logger.child({ source: source.name });
  const redact = options.redact ?? createRedactor([]);
  const state = initialStatus(source);
  const codeCache = options.codeCache ?? createCodeCache();
  const declaredCache = createDeclaredCache();
  const repo = openSource(source, { stateDir: options.stateDir, env: options.env, logger: log });
  metrics.addSource(source.name);
  /** The pass under way, filled in as it goes; turned into a PassRecord when it ends. */
  let current: PassUnderWay = newPass();
  const history = await openPassHistory(options.stateDir, source.name, log);
  let historyWritten = Promise.resolve();
  const waiters = createPassWaiters();
  const suspensions = options.suspensions;
  const now = options.now ?? (() => new Date());
  const windows = openSyncWindows(source.syncWindows ?? []);
  const fights = createFightDetector(now);
  /** `sync --override-window` asked for the next pass to start to apply in a closed window. */
  let overrideRequested = false;
  metrics.suspended(source.name, suspensions?.since(source.name) != null);
  let lastWarnings = new Set<string>();

  /** Logs each plan warning the first time it appears; a warning repeated by every pass (prune is off) is logged once. */
  function logWarnings(warnings: readonly string[]): void {
    const seen = lastWarnings;
    lastWarnings = new Set(warnings);
    const fresh = warnings.filter((w) => !seen.has(w));
    for (const warning of fresh) log.warn({ warning }, 'plan warning');
    if (fresh.length < warnings.length) log.debug({ repeated: warnings.length - fresh.length }, 'plan warnings unchanged since the last pass');
  }

  /** One pass: check the source out, then run the reconcile pass in apply mode, and record what it came to. */
  async function pass(trigger: TriggerReason, signal: AbortSignal, stop: AbortSignal): Promise<LoopPassResult> {
    const { dir, revision } = await checkout(signal);
    current.revision = revision;
    current.liveDrift = declaredUnchanged(
      { kind: state.kind, revision, trigger },
      { succeeded: state.lastSuccessAt !== null, appliedRevision: state.lastAppliedRevision },
    );
    if (source.git !== null) options.notifier?.passStarted(source, revision);
    const window = windows.state(now());
    current.overrideWindow = current.overrideAsked && window.closed;
    current.windowClosed = window.closed && !current.overrideWindow;
    if (current.overrideWindow) log.warn({ window: window.reason }, 'the sync window is closed; applying anyway, as sync --override-window asked');
    const session = openPassSession(options.api, signal);
    const progress = new ProgressReporter({ logger: options.logger });
    let outcome: PassOutcome;
    try {
      outcome = await options.reconcile(
        {
          source, dir, revision, api: session.api, logger: options.logger, mode: current.windowClosed ? 'plan' : 'apply', codeCache, declaredCache,
          concurrency: options.concurrency, signal, stop, onProgress: (p) => progress.update(p),
        },
        trigger,
      );
    } catch (error) {
      // runPass reports what is wrong with the source in its outcome; a throw is a bug or an unexpected failure.
      if (!signal.aborted) log.error({ trigger, stack: errorStack(error) }, 'pass threw');
      throw error;
    } finally {
      progress.end();
      state.apiReached = session.apiReached() ?? state.apiReached;
      if (session.apiReached() !== true && options.apiUrl !== undefined && !stop.aborted) await warnIfUnreachable(options.apiUrl, log, options.env);
      await options.saveCodeCache?.();
    }
    current.outcome = outcome;
    logNotApplied(outcome, stop);
    const { plan } = outcome.sourcePlan;
    if (plan !== null) logWarnings(plan.warnings);
    if (plan !== null) noteFights(plan.changes, outcome.results);
    if (plan !== null && current.windowClosed && plan.changes.length > 0) {
      log.info({ waiting: plan.changes.length, window: windows.state(now()).reason }, `${plan.changes.length} changes waiting for the window`);
    }
    // A pass without a plan says nothing about drift: the last known figure stays.
    if (plan !== null) {
      state.driftCount = plan.changes.length;
      metrics.drift(source.name, plan.changes.length);
    }
    state.waitingForWindow = current.windowClosed && plan !== null ? plan.changes.length : null;
    // Only after a pass that reached the API: the pools' health costs a request per pool.
    if (outcome.ok && session.apiReached() === true) await checkPools(session.api);
    if (outcome.ok && !current.windowClosed) {
      state.lastAppliedRevision = revision;
      state.lastSuccessAt = new Date().toISOString();
      metrics.lastSuccess(source.name, Date.now());
    }
    const errors = sourceErrors(outcome.sourcePlan);
    return { ok: outcome.ok, error: errors.length === 0 ? null : errors.join('; ') };
  }

  /** Names, on /status, in the log and as a metric, the resources another writer keeps changing back. */
  function noteFights(planned: PassOutcome['results'][number]['change'][], results: PassOutcome['results']): void {
    state.fighting = fights.observe(planned, results).map(fightWarning);
    for (const warning of state.fighting) log.warn({ warning }, 'another writer changes this source\'s resources back');
    metrics.fighting(source.name, state.fighting.length);
  }

  /** The organization's pools and agents after a successful pass, for /status, the page and the metrics; a failed read is logged, not a failure. */
  async function checkPools(api: PolicyApi): Promise<void> {
    try {
      const pools = await readPoolHealth(api, source.organization);
      state.pools = pools;
      for (const pool of pools) {
        metrics.poolHealth(source.organization, pool.name, pool.agents, pool.newestPingAt === null ? null : (now().getTime() - Date.parse(pool.newestPingAt)) / 1000);
        if (pool.warning !== null) log.warn({ pool: pool.name }, pool.warning);
      }
    } catch (error) {
      log.debug({ error: safeErrorMessage(error) }, 'cannot read the agent pools\' health');
    }
  }

  /** A shutdown stopped the apply: names the changes it did not start; the next pass after a restart applies them. */
  function logNotApplied(outcome: PassOutcome, stop: AbortSignal): void {
    const skipped = outcome.results.filter((r) => r.outcome === 'skipped' && r.message === NOT_STARTED);
    if (!stop.aborted || skipped.length === 0) return;
    const notApplied = skipped.map((r) => `${r.change.action} ${r.change.resource} "${r.change.name}"`);
    log.warn({ count: notApplied.length, notApplied }, 'shutdown: changes not applied (the next pass applies them)');
  }

  /** The checkout, and whether git could be reached, for /readyz. */
  async function checkout(signal: AbortSignal): Promise<Checkout> {
    if (repo.kind !== 'git') return repo.checkout(signal);
    try {
      const result = await repo.checkout(signal);
      state.gitReached = true;
      state.lastAttemptedRevision = result.revision;
      return result;
    } catch (error) {
      state.gitReached = false;
      throw error;
    }
  }

  const loop: SourceLoop = createSourceLoop({
    name: source.name,
    pass,
    timeoutMs: source.passTimeoutSeconds * 1000,
    ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
    logger: options.logger,
    onPassStart(trigger) {
      state.running = true;
      state.lastTrigger = trigger;
      current = newPass();
      // The first pass that starts after `sync --override-window` takes the override, whatever its trigger: a sync
      // asked for while another pass is queued is coalesced into that pass, and its waiter gets that pass's record.
      current.overrideAsked = overrideRequested;
      overrideRequested = false;
      waiters.started();
      log.info({ trigger }, 'pass started');
    },
    accepts: (reason) => (options.leading?.() ?? true) && (reason === 'sync' || suspensions?.since(source.name) == null),
    onPassEnd(end) {
      state.running = false;
      state.result = resultLabel(end);
      state.error = end.error === null ? null : redact(errorMessage(end.error));
      const finishedAt = new Date();
      state.lastRunAt = finishedAt.toISOString();
      state.lastPass = redactValue({
        ...passRecord(end, current.startedAt, finishedAt, current.revision, current.outcome, state.error, current.liveDrift),
        ...(current.overrideWindow ? { window: 'overridden' as const } : current.windowClosed ? { window: 'closed' as const } : {}),
      }, redact);
      historyWritten = history.add(state.lastPass);
      waiters.ended(state.lastPass);
      options.notifier?.passFinished(
        source,
        passReport(source, current.outcome, {
          trigger: end.trigger, revision: current.revision, ok: end.ok, error: state.error, windowClosed: current.windowClosed, overrideWindow: current.overrideWindow,
        }),
      );
      metrics.passFinished(source.name, state.result, end.durationMs / 1000);
      // The pass's own figure: a pass that made no plan has none (the last known one stays on /status).
      const fields = { trigger: end.trigger, result: state.result, durationMs: end.durationMs, revision: state.lastAttemptedRevision, drift: state.lastPass.drift };
      if (end.ok) log.info(fields, 'pass finished');
      else log.warn({ ...fields, error: state.error }, 'pass failed');
    },
  });

  const schedule: Schedule = startSchedule({ name: source.name, expression: source.schedule, onTick: () => loop.trigger('schedule'), logger: options.logger });
  let watch: SourceWatch | null = null;
  try {
    watch = await repo.watch(() => loop.trigger('file-change'), options.watchDebounceMs);
  } catch (error) {
    log.warn({ path: source.path, error: safeErrorMessage(error) }, 'cannot watch the source folder; only the schedule triggers passes');
  }

  return {
    source,
    trigger: (reason) => loop.trigger(reason),
    status(options = {}) {
      const next = [schedule.nextRun()?.getTime(), loop.retryAt].filter((t): t is number => typeof t === 'number');
      const suspendedAt = suspensions?.since(source.name) ?? null;
      const status: SourceStatus = {
        ...state, running: loop.running, nextRunAt: suspendedAt !== null || next.length === 0 ? null : new Date(Math.min(...next)).toISOString(),
        suspended: suspendedAt !== null, suspendedAt, syncWindow: source.syncWindows === undefined || source.syncWindows.length === 0 ? null : windows.state(now()),
      };
      if (options.history === true) status.history = [...history.passes];
      return status;
    },
    whenIdle: () => loop.whenIdle(),
    sync({ overrideWindow }) {
      const ended = waiters.next();
      // A plain sync coalesced with an override does not cancel it.
      overrideRequested ||= overrideWindow;
      log.info({ overrideWindow }, 'sync asked for');
      loop.trigger('sync');
      return ended;
    },
    get suspended() {
      return suspensions?.since(source.name) != null;
    },
    async suspend() {
      try {
        await suspensions?.suspend(source.name, now());
      } catch (error) {
        metrics.suspended(source.name, true);
        log.error({ error: safeErrorMessage(error) }, 'source suspended until the daemon stops, but the suspension could not be saved');
        throw error;
      }
      metrics.suspended(source.name, true);
      log.warn('source suspended: no trigger starts a pass until it is resumed');
    },
    async resume() {
      try {
        await suspensions?.resume(source.name);
      } catch (error) {
        log.error({ error: safeErrorMessage(error) }, 'the source stays suspended: its resumption could not be saved');
        throw error;
      }
      metrics.suspended(source.name, false);
      log.info('source resumed');
      loop.trigger('sync');
    },
    standBy: () => loop.abort(new Error('this replica lost the lease; the pass was aborted (the new leader runs its own)')),
    async stop(graceMs) {
      await schedule.stop();
      await watch?.close();
      await loop.stop(graceMs);
      waiters.close();
      await historyWritten;
    },
  };
}

/** What the runner knows of the pass under way; turned into a PassRecord when it ends. */
interface PassUnderWay {
  startedAt: Date;
  revision: string | null;
  outcome: PassOutcome | null;
  /** A closed sync window: the pass plans and applies nothing. */
  windowClosed: boolean;
  /** `sync --override-window` was asked for before this pass started. */
  overrideAsked: boolean;
  /** `sync --override-window` applied in a closed window. */
  overrideWindow: boolean;
  /** The declared side is as the last successful pass left it: the changes are drift. */
  liveDrift: boolean;
}

function newPass(): PassUnderWay {
  return { startedAt: new Date(), revision: null, outcome: null, windowClosed: false, overrideAsked: false, overrideWindow: false, liveDrift: false };
}

function errorStack(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
