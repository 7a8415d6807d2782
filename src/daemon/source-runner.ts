import type { PolicyApi } from '../api/types.js';
import { NOT_STARTED } from '../apply/apply.js';
import type { SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { createDeclaredCache } from '../declared/index.js';
import { sourceErrors } from '../output/index.js';
import { ProgressReporter } from '../progress.js';
import { createCodeCache, type CodeCache, type PassOutcome, type PassRequest } from '../reconcile.js';
import { openPassSession } from '../session.js';
import { openSource, redactCredentials, safeErrorMessage, type Checkout, type SourceWatch } from '../source/index.js';
import type { DaemonMetrics } from './metrics.js';
import { startSchedule, type Schedule } from './schedule.js';
import { createSourceLoop, type BackoffOptions, type LoopPassResult, type SourceLoop, type TriggerReason } from './source-loop.js';
import { HISTORY_LENGTH, passRecord, resultLabel, type PassRecord } from './pass-record.js';
import { initialStatus, type SourceStatus } from './status.js';
import { createFightDetector, fightWarning } from './fight-detector.js';

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
}

/** One source in the daemon: its loop, its schedule, its folder watch, and what /status says about it. */
export interface SourceRunner {
  source: SourceConfig;
  trigger(reason: TriggerReason): void;
  /** What /status shows; with `history`, the last passes too, newest first. */
  status(options?: { history?: boolean }): SourceStatus;
  whenIdle(): Promise<void>;
  /** Stops the schedule and the watch; the pass in flight starts no new change, and its changes under way are awaited. */
  stop(graceMs?: number): Promise<void>;
}

export async function startSourceRunner(options: SourceRunnerOptions): Promise<SourceRunner> {
  const { source, metrics } = options;
  const log = options.logger.child({ source: source.name });
  const state = initialStatus(source);
  const codeCache = options.codeCache ?? createCodeCache();
  const declaredCache = createDeclaredCache();
  const repo = openSource(source, { stateDir: options.stateDir, env: options.env, logger: log });
  metrics.addSource(source.name);
  const fights = createFightDetector();
  /** The pass under way, filled in as it goes; turned into a PassRecord when it ends. */
  let current: { startedAt: Date; revision: string | null; outcome: PassOutcome | null } = { startedAt: new Date(), revision: null, outcome: null };
  const history: PassRecord[] = [];
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
    const session = openPassSession(options.api, signal);
    const progress = new ProgressReporter({ logger: options.logger });
    let outcome: PassOutcome;
    try {
      outcome = await options.reconcile(
        {
          source, dir, revision, api: session.api, logger: options.logger, mode: 'apply', codeCache, declaredCache,
          concurrency: options.concurrency, signal, stop, onProgress: (p) => progress.update(p),
        },
        trigger,
      );
    } catch (error) {
      // runPass reports what is wrong with the source in its outcome; a throw is a bug or an unexpected failure.
      if (!signal.aborted) log.error({ trigger, stack: redactCredentials(errorStack(error)) }, 'pass threw');
      throw error;
    } finally {
      progress.end();
      state.apiReached = session.apiReached() ?? state.apiReached;
      await options.saveCodeCache?.();
    }
    current.outcome = outcome;
    logNotApplied(outcome, stop);
    const { plan } = outcome.sourcePlan;
    if (plan !== null) logWarnings(plan.warnings);
    if (plan !== null) noteFights(plan.changes, outcome.results);
    // A pass without a plan says nothing about drift: the last known figure stays.
    if (plan !== null) {
      state.driftCount = plan.changes.length;
      metrics.drift(source.name, plan.changes.length);
    }
    if (outcome.ok) {
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
      current = { startedAt: new Date(), revision: null, outcome: null };
      log.info({ trigger }, 'pass started');
    },
    onPassEnd(end) {
      state.running = false;
      state.result = resultLabel(end);
      state.error = end.error === null ? null : safeErrorMessage(end.error);
      const finishedAt = new Date();
      state.lastRunAt = finishedAt.toISOString();
      state.lastPass = passRecord(end, current.startedAt, finishedAt, current.revision, current.outcome, state.error);
      history.unshift(state.lastPass);
      history.length = Math.min(history.length, HISTORY_LENGTH);
      metrics.passFinished(source.name, state.result, end.durationMs / 1000);
      const fields = { trigger: end.trigger, result: state.result, durationMs: end.durationMs, revision: state.lastAttemptedRevision, drift: state.driftCount };
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
      const status: SourceStatus = { ...state, running: loop.running, nextRunAt: next.length === 0 ? null : new Date(Math.min(...next)).toISOString() };
      if (options.history === true) status.history = [...history];
      return status;
    },
    whenIdle: () => loop.whenIdle(),
    async stop(graceMs) {
      await schedule.stop();
      await watch?.close();
      await loop.stop(graceMs);
    },
  };
}

function errorStack(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
