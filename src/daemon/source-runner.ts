import type { SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { createCodeCache } from '../reconcile.js';
import type { DaemonPass } from './daemon-types.js';
import { openSource, safeErrorMessage, type SourceWatch } from '../source/index.js';
import type { DaemonMetrics } from './metrics.js';
import { startSchedule, type Schedule } from './schedule.js';
import { createSourceLoop, type BackoffOptions, type SourceLoop, type TriggerReason } from './source-loop.js';
import { initialStatus, resultLabel, type SourceStatus } from './status.js';

export interface SourceRunnerOptions {
  source: SourceConfig;
  stateDir: string;
  pass: DaemonPass;
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
  status(): SourceStatus;
  whenIdle(): Promise<void>;
  /** Stops the schedule and the watch, then waits for the pass in flight. */
  stop(): Promise<void>;
}

export async function startSourceRunner(options: SourceRunnerOptions): Promise<SourceRunner> {
  const { source, metrics } = options;
  const log = options.logger.child({ source: source.name });
  const state = initialStatus(source);
  const codeCache = createCodeCache();
  const repo = openSource(source, { stateDir: options.stateDir, env: options.env, logger: log });
  metrics.addSource(source.name);

  async function pass(trigger: TriggerReason, signal: AbortSignal) {
    let checkout;
    try {
      checkout = await repo.checkout(signal);
    } catch (error) {
      if (repo.kind === 'git') state.gitReached = false;
      throw error;
    }
    const { dir, revision } = checkout;
    if (repo.kind === 'git') {
      state.gitReached = true;
      state.lastAttemptedRevision = revision;
    }
    const report = await options.pass({ source, dir, revision, trigger, signal, codeCache, logger: options.logger });
    state.apiReached = report.apiReached ?? state.apiReached;
    if (report.driftCount !== null) {
      state.driftCount = report.driftCount;
      metrics.drift(source.name, report.driftCount);
    }
    if (report.ok) {
      state.lastAppliedRevision = revision;
      state.lastSuccessAt = new Date().toISOString();
      metrics.lastSuccess(source.name, Date.now());
    }
    return { ok: report.ok, error: report.errors.length === 0 ? null : report.errors.join('; ') };
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
      log.info({ trigger }, 'pass started');
    },
    onPassEnd(end) {
      state.running = false;
      state.result = resultLabel(end);
      state.error = end.error === null ? null : safeErrorMessage(end.error);
      state.lastRunAt = new Date().toISOString();
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
    status() {
      const next = [schedule.nextRun()?.getTime(), loop.retryAt].filter((t): t is number => typeof t === 'number');
      return { ...state, running: loop.running, nextRunAt: next.length === 0 ? null : new Date(Math.min(...next)).toISOString() };
    },
    whenIdle: () => loop.whenIdle(),
    async stop() {
      await schedule.stop();
      await watch?.close();
      await loop.stop();
    },
  };
}
