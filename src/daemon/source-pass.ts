import type { RunCache } from '../api/evidence-cache.js';
import type { PolicyApi } from '../api/types.js';
import { NOT_STARTED } from '../apply/apply.js';
import type { SourceConfig } from '../config/types.js';
import type { DeclaredCache } from '../declared/index.js';
import type { Logger } from '../logger.js';
import { declaredUnchanged, type Notifier } from '../notify/index.js';
import { fightWarning, type FightDetector } from '../operations/fight-detector.js';
import type { DaemonMetrics } from '../operations/metrics.js';
import type { TriggerReason } from '../operations/pass-record.js';
import { poolHealth, readPoolHealth } from '../operations/pool-health.js';
import { passSetVersions, readSetVersions } from '../operations/policy-set-versions.js';
import type { SyncWindows } from '../operations/sync-windows.js';
import { passErrors } from '../output/index.js';
import { count } from '../plural.js';
import { ProgressReporter } from '../progress.js';
import type { CodeCache, PassOutcome, PassRequest } from '../reconcile.js';
import type { SourceStatus } from '../operations/source-status.js';
import type { RolloutStatus } from '../plan/evidence.js';
import { openPassSession } from '../session.js';
import { safeErrorMessage, type Checkout, type Source } from '../source/index.js';
import type { LoopPassResult } from './source-loop.js';

/** `runPass` in production; tests pass their own to see which trigger started each pass. */
export type Reconcile = (request: PassRequest, trigger: TriggerReason) => Promise<PassOutcome>;

/** What the runner knows of the pass under way; turned into a PassRecord when it ends. */
export interface PassUnderWay {
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
  /** Plan warnings the last pass did not have (each logged once). */
  newWarnings: number;
}

export function newPass(): PassUnderWay {
  return { startedAt: new Date(), revision: null, outcome: null, windowClosed: false, overrideAsked: false, overrideWindow: false, liveDrift: false, newWarnings: 0 };
}

/** What one source's passes read and fill in: its effects, its caches, and the status record of the source. */
export interface PassContext {
  source: SourceConfig;
  repo: Source;
  api: PolicyApi;
  reconcile: Reconcile;
  /** Changes applied at once (`api.concurrency`). */
  concurrency: number;
  codeCache: CodeCache;
  runCache?: RunCache;
  declaredCache: DeclaredCache;
  saveCodeCache: (() => Promise<void>) | undefined;
  notifier: Notifier | undefined;
  metrics: DaemonMetrics;
  /** The daemon's logger (the pass's own lines), and the source's child of it. */
  logger: Logger;
  log: Logger;
  env: NodeJS.ProcessEnv;
  now: () => Date;
  windows: SyncWindows;
  fights: FightDetector;
  /** What /status shows; each pass updates it. */
  status: SourceStatus;
  /** The pass under way, filled in as it goes. */
  current: PassUnderWay;
  /** The plan warnings of the last pass, so a repeated one is logged once. */
  lastWarnings: Set<string>;
}

/** One pass: check the source out, then run the reconcile pass in apply mode, and record what it came to. */
export async function runSourcePass(ctx: PassContext, trigger: TriggerReason, loopSignal: AbortSignal, stop: AbortSignal): Promise<LoopPassResult> {
  const { source, status, current, log } = ctx;
  const writes = untilStopUnlessWriting(loopSignal, stop);
  const { signal } = writes;
  const { dir, revision } = await checkout(ctx, signal);
  current.revision = revision;
  current.liveDrift = declaredUnchanged(
    { kind: status.kind, revision, trigger },
    { succeeded: status.lastSuccessAt !== null, appliedRevision: status.lastAppliedRevision },
  );
  if (source.git !== null) ctx.notifier?.passStarted(source, revision);
  const window = ctx.windows.state(ctx.now());
  current.overrideWindow = current.overrideAsked && window.closed;
  current.windowClosed = window.closed && !current.overrideWindow;
  if (current.overrideWindow) log.warn({ window: window.reason }, 'the sync window is closed; applying anyway, as sync --override-window asked');
  const session = openPassSession(ctx.api, signal);
  // Reading is what every pass does, an idle one too: its start is debug; a long read still reports at info.
  const progress = new ProgressReporter({ logger: ctx.logger, quietStarts: ['reading', 'downloading'] });
  let outcome: PassOutcome;
  try {
    outcome = await ctx.reconcile(
      {
        source, dir, revision, api: session.api, logger: ctx.logger, env: ctx.env, mode: current.windowClosed ? 'plan' : 'apply', codeCache: ctx.codeCache,
        ...(ctx.runCache === undefined ? {} : { runCache: ctx.runCache }),
        declaredCache: ctx.declaredCache, concurrency: ctx.concurrency, signal, stop, poolHealth: true, onProgress: (p) => {
          if (p.phase === 'applying') writes.applying();
          progress.update(p);
        },
      },
      trigger,
    );
  } catch (error) {
    // runPass reports what is wrong with the source in its outcome; a throw is a bug or an unexpected failure.
    if (!signal.aborted) log.error({ trigger, stack: errorStack(error) }, 'pass threw');
    throw error;
  } finally {
    writes.done();
    progress.end();
    status.apiReached = session.apiReached() ?? status.apiReached;
    await ctx.saveCodeCache?.();
  }
  current.outcome = outcome;
  logNotApplied(log, outcome, stop);
  recordPlan(ctx, outcome);
  // Only after a pass that reached the API.
  if (outcome.ok && session.apiReached() === true) await checkPools(ctx, session.api, outcome);
  await checkSets(ctx, session.api, outcome);
  if (outcome.ok && !current.windowClosed) {
    status.lastAppliedRevision = revision;
    status.lastSuccessAt = new Date().toISOString();
    ctx.metrics.lastSuccess(source.name, Date.now());
  }
  const errors = passErrors(outcome.sourcePlan, outcome.results);
  return { ok: outcome.ok, error: errors.length === 0 ? null : errors.join('; ') };
}

/**
 * The signal of a pass: the loop's (its timeout, the end of a shutdown's grace), and a shutdown itself until the pass
 * starts to apply: a pass that is still reading or planning (an API that refuses connections, retried) has no write
 * under way, so it ends at once. Once it applies, a shutdown only stops it starting new changes (`stop`).
 */
function untilStopUnlessWriting(loopSignal: AbortSignal, stop: AbortSignal): { signal: AbortSignal; applying(): void; done(): void } {
  const own = new AbortController();
  const onStop = () => own.abort(new Error('the daemon is shutting down; the pass was stopped before it changed anything'));
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  const done = () => stop.removeEventListener('abort', onStop);
  return { signal: AbortSignal.any([loopSignal, own.signal]), applying: done, done };
}

/** What the pass's plan says: its warnings, the fights, the changes waiting for the window, the drift. */
function recordPlan(ctx: PassContext, outcome: PassOutcome): void {
  const { plan } = outcome.sourcePlan;
  const { status, current } = ctx;
  if (plan !== null) logWarnings(ctx, plan.warnings);
  if (plan !== null) noteFights(ctx, plan.changes, outcome.results);
  if (plan !== null && current.windowClosed && plan.changes.length > 0) {
    ctx.log.info({ waiting: plan.changes.length, window: ctx.windows.state(ctx.now()).reason }, `${count(plan.changes.length, 'change')} waiting for the window`);
  }
  // A pass without a plan says nothing about drift: the last known figure stays.
  if (plan !== null) {
    status.driftCount = plan.changes.length;
    ctx.metrics.drift(ctx.source.name, plan.changes.length);
  }
  status.waitingForWindow = current.windowClosed && plan !== null ? plan.changes.length : null;
  if (plan !== null) recordRollouts(ctx, plan.rollouts ?? [], outcome.results);
}

/** Rollouts under way on /status and in the metrics; a promotion whose change was applied is logged and counted. */
function recordRollouts(ctx: PassContext, rollouts: readonly RolloutStatus[], results: PassOutcome['results']): void {
  ctx.status.rollouts = [...rollouts];
  ctx.metrics.rollouts(ctx.source.name, rollouts.filter((r) => r.state !== 'promoted').length);
  for (const rollout of rollouts.filter((r) => r.state === 'promoted')) {
    const applied = results.some((r) => r.outcome === 'applied' && r.change.resource === 'policy' && r.change.name === rollout.policy);
    if (!applied) continue;
    ctx.metrics.promoted(ctx.source.name);
    ctx.log.info({ policy: rollout.policy, level: rollout.level, cleanRuns: rollout.cleanRuns }, `rollout promoted: policy "${rollout.policy}" is now ${rollout.level}`);
  }
}

/** Logs each plan warning the first time it appears; a warning repeated by every pass (prune is off) is logged once. */
function logWarnings(ctx: PassContext, warnings: readonly string[]): void {
  const seen = ctx.lastWarnings;
  ctx.lastWarnings = new Set(warnings);
  const fresh = warnings.filter((w) => !seen.has(w));
  ctx.current.newWarnings = fresh.length;
  for (const warning of fresh) ctx.log.warn({ warning }, 'plan warning');
  if (fresh.length < warnings.length) ctx.log.debug({ repeated: warnings.length - fresh.length }, 'plan warnings unchanged since the last pass');
}

/** Names, on /status, in the log and as a metric, the resources another writer keeps changing back. */
function noteFights(ctx: PassContext, planned: PassOutcome['results'][number]['change'][], results: PassOutcome['results']): void {
  ctx.status.fighting = ctx.fights.observe(planned, results).map(fightWarning);
  for (const warning of ctx.status.fighting) ctx.log.warn({ warning }, 'another writer changes this source\'s resources back');
  ctx.metrics.fighting(ctx.source.name, ctx.status.fighting.length);
}

/**
 * The organization's pools and agents after a successful pass, for /status, the page and the metrics: as the pass read
 * them (no request of its own), read again (the pool list and each pool's agents) only after a pass that changed a pool
 * or an agent. A failed read is logged, not a failure.
 */
async function checkPools(ctx: PassContext, api: PolicyApi, outcome: PassOutcome): Promise<void> {
  const wrote = outcome.results.some((r) => (r.change.resource === 'agent-pool' || r.change.resource === 'agent') && r.outcome !== 'skipped');
  try {
    const pools = outcome.pools !== undefined && !wrote ? poolHealth(outcome.pools) : await readPoolHealth(api, ctx.source.organization);
    ctx.status.pools = pools;
    for (const pool of pools) {
      ctx.metrics.poolHealth(ctx.source.organization, pool.name, pool.agents, pool.newestPingAt === null ? null : (ctx.now().getTime() - Date.parse(pool.newestPingAt)) / 1000);
      if (pool.warning !== null) ctx.log.warn({ pool: pool.name }, pool.warning);
    }
  } catch (error) {
    ctx.log.debug({ error: safeErrorMessage(error) }, 'cannot read the agent pools\' health');
  }
}

/** Each declared set's version and state for /status: as the pass read them, read again after it wrote to a set; a failed read is logged, not a failure. */
async function checkSets(ctx: PassContext, api: PolicyApi, outcome: PassOutcome): Promise<void> {
  if (outcome.policySets === undefined) return;
  const wrote = outcome.results.some((r) => r.change.resource === 'policy-set' && r.outcome !== 'skipped');
  try {
    ctx.status.policySets = await passSetVersions(outcome.policySets, wrote, (names) => readSetVersions(api, ctx.source.organization, names));
  } catch (error) {
    ctx.status.policySets = await passSetVersions(outcome.policySets, false, async () => []);
    ctx.log.debug({ error: safeErrorMessage(error) }, 'cannot read the versions of the policy sets');
  }
}

/** A shutdown stopped the apply: names the changes it did not start; the next pass after a restart applies them. */
function logNotApplied(log: Logger, outcome: PassOutcome, stop: AbortSignal): void {
  const skipped = outcome.results.filter((r) => r.outcome === 'skipped' && r.message === NOT_STARTED);
  if (!stop.aborted || skipped.length === 0) return;
  const notApplied = skipped.map((r) => `${r.change.action} ${r.change.resource} "${r.change.name}"`);
  log.warn({ count: notApplied.length, notApplied }, 'shutdown: changes not applied (the next pass applies them)');
}

/** The checkout, and whether git could be reached, for /readyz. */
async function checkout(ctx: PassContext, signal: AbortSignal): Promise<Checkout> {
  if (ctx.repo.kind !== 'git') return ctx.repo.checkout(signal);
  try {
    const result = await ctx.repo.checkout(signal);
    ctx.status.gitReached = true;
    ctx.status.lastAttemptedRevision = result.revision;
    return result;
  } catch (error) {
    ctx.status.gitReached = false;
    throw error;
  }
}

function errorStack(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
