import type { RunCache } from './api/evidence-cache.js';
import type { PolicyApi } from './api/types.js';
import { applyPlan, NOT_STARTED } from './apply/apply.js';
import { inClusterSecretWriter, type SecretWriter } from './apply/token-secret.js';
import { SERVICE_ACCOUNT_DIR } from './config/secrets.js';
import type { SourceConfig } from './config/types.js';
import { readDeclared, withCodeTexts, type DeclaredCache } from './declared/index.js';
import { declaresNothing, emptySourceError } from './declared/empty-source.js';
import type { DeclaredState } from './declared/types.js';
import { errorMessage, formatProblem, ValidationError } from './errors.js';
import { count } from './plural.js';
import { loopTurn } from './loop-turn.js';
import { checkedAgainstLimits } from './live/limits.js';
import { liveReadFailure } from './live/read-failure.js';
import { readLive } from './live/read-live.js';
import { DEFAULT_EVIDENCE, planWithEvidence, type EvidenceSettings } from './live/evidence-stage.js';
import type { CodeCache } from './live/code-cache.js';
import type { Logger } from './logger.js';
import type { LivePolicySet, LivePool, LiveState } from './model.js';
import { resolveNames } from './plan/names.js';
import { matchPolicies, type Pairing } from './plan/pairs.js';
import { policiesShowingCode } from './plan/policies.js';
import { checkSavedChanges, savedRefusalHead, type SavedSource } from './plan/saved.js';
import type { ChangeResult, Plan, PlannedSource, PlanOptions, SourcePlan, UnplannedSource } from './plan/types.js';
import type { PassProgress } from './progress.js';
import { openPassSession, type PassSession } from './session.js';

export { createCodeCache, type CodeCache } from './live/code-cache.js';

export interface PassRequest {
  source: SourceConfig;
  /** Where a token's `deliver-to: {secret}` is written. @default the pod's Kubernetes API, with its service account */
  secretWriter?: SecretWriter;
  /** Folder holding the declared tree. */
  dir: string;
  /** Git commit, or null for a local folder. */
  revision: string | null;
  api: PolicyApi;
  logger: Logger;
  mode: 'plan' | 'apply';
  /** Overrides `source.prune` when set (`--prune`). */
  prune?: boolean;
  /** The environment the CLI or daemon was given: sensitive parameters' `{env: NAME}` are read from it. @default process.env */
  env?: NodeJS.ProcessEnv;
  force?: boolean;
  codeCache?: CodeCache;
  /** Parsed files of the declared repo, reused while they are unchanged; kept across a daemon source's passes. */
  declaredCache?: DeclaredCache;
  /** The pass's time: the planner's now, and the elapsed time of a policy set version's poll. @default Date.now */
  now?: () => number;
  /** The pass's waits (a policy set version's poll), ended by the signal given. @default a timer */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Changes applied at once (`api.concurrency`). @default 8 */
  concurrency?: number;
  /** The level of the records a person reads in the plan itself: the plan made, each applied change (see `ApplyOptions`). @default 'info' */
  appliedLogLevel?: 'info' | 'debug';
  /**
   * Ends the pass: the walk of the declared repo and the apply stop, and every request of `api`, which the pass binds
   * to it (its PassSession, src/session.ts). A pass timeout, or the end of a shutdown's grace time.
   */
  signal?: AbortSignal;
  /** A shutdown began: no change starts any more (none at all if the apply has not begun); those under way finish. */
  stop?: AbortSignal;
  /**
   * Called with the plan once it is made, before the first write of the apply (the CLI prints it there);
   * awaited. Not called when no plan could be made.
   */
  onPlan?: (planned: PlannedSource) => void | Promise<void>;
  /**
   * Awaited once the declared repo is read and valid, before the first request: the one-shot modes check there that
   * the API can be reached at all, so that a wrong folder is reported as such whatever the URL. What it throws ends the pass.
   */
  beforeLive?: () => Promise<void>;
  /** How the runs of tightening changes and rollouts are read (window, request budget, reader). @default the source's `evidence:` */
  evidence?: EvidenceSettings;
  /** The findings of finished runs, kept across passes (the evidence cache in the state dir); absent: each read starts cold. */
  runCache?: RunCache;
  /** Where the pass stands: reading, downloading code, applying (with counts). */
  onProgress?: (progress: PassProgress) => void;
  /** The daemon's pool health: the live read takes every pool's agents, and the outcome gives the pools as read (`pools`). @default false */
  poolHealth?: boolean;
  /**
   * A saved plan of this source (`--reconcile --plan FILE`): its changes are applied, and nothing else, provided every
   * live resource and declaration it was planned against is unchanged and the plan made now holds each identical
   * change (plan/saved.ts, `checkSavedChanges`); otherwise nothing is applied.
   */
  saved?: SavedSource;
}

/** What one pass over one source came to; the CLI renders it, the daemon reports it on /status and /metrics. */
export interface PassOutcome {
  /** The plan, or why none could be made (the declared repo is invalid, or the live state could not be read). */
  sourcePlan: SourcePlan;
  /** One result per planned change, in plan order; empty in plan mode, or when the plan was not applied. */
  results: ChangeResult[];
  /** false when there is no plan, a guard refused, or an action failed. */
  ok: boolean;
  /** The declared policy sets as this pass read them live, before any write (null: none yet); absent without a plan. */
  policySets?: Array<{ name: string; live: LivePolicySet | null }>;
  /** With `poolHealth`: the organization's pools and their agents as this pass read them, before any write; absent without a plan. */
  pools?: LivePool[];
}

/**
 * One reconcile pass over one source: read the declared repo, read the live state, plan, then apply that plan.
 * An invalid repo or a failed read of the live state ends the pass without a plan. Anything else that throws
 * (a bug of the planner, say) is not a finding about the source, and propagates with its stack.
 */
export async function runPass(request: PassRequest): Promise<PassOutcome> {
  const { source, logger } = request;
  const session = openPassSession(request.api, request.signal, request.now, request.sleep);
  let wave: string | undefined;
  const progress = (phase: PassProgress['phase'], done: number, total: number | null, failed = 0) =>
    request.onProgress?.({ source: source.name, phase, done, total, failed, ...(wave === undefined ? {} : { wave }) });
  const header = { name: source.name, organization: source.organization, revision: request.revision };
  const unplanned = (unreadable: UnplannedSource['unreadable'], errors: string[]): PassOutcome => ({
    sourcePlan: { ...header, plan: null, unreadable, errors },
    results: [],
    ok: false,
  });

  progress('reading', 0, null);
  let declared: DeclaredState;
  try {
    declared = await readDeclared(request.dir, {
      maxAgentPools: source.maxAgentPools,
      strictImports: source.strictImports === true,
      ...(request.env === undefined ? {} : { env: request.env }),
      ...(source.parameters === undefined ? {} : { parameters: source.parameters }),
      tokenDir: source.tokenDir ?? null,
      tokenSecrets: source.tokenSecrets ?? [],
      ...(session.signal === undefined ? {} : { signal: session.signal }),
      ...(request.declaredCache === undefined ? {} : { cache: request.declaredCache }),
      ...(session.api.keyedDigest === undefined ? {} : { keyedDigest: (text: string) => session.api.keyedDigest!(text) }),
    });
  } catch (error) {
    if (error instanceof ValidationError) return unplanned('declared', error.problems.map(formatProblem));
    throw error;
  }
  // As --validate: a source that declares nothing is refused before any request, unless it may be empty (a saved plan
  // was checked when it was made).
  if (declaresNothing(declared) && !source.allowEmpty && request.saved === undefined) return unplanned('declared', [emptySourceError(request.dir)]);

  let live: LiveState;
  await request.beforeLive?.();
  try {
    live = await readLive({
      api: session.api, organization: source.organization, declared, logger, codeCache: request.codeCache, prune: request.prune ?? source.prune,
      onCodeProgress: (done, total) => progress('downloading', done, total), ...(request.poolHealth === true ? { poolHealth: true } : {}),
    });
  } catch (error) {
    return unplanned('live', [liveReadFailure(error, source.organization)]);
  }
  session.signal?.throwIfAborted();
  const options = planOptions(request, session);
  const fresh = await freshPlan(declared, live, options, { api: session.api, organization: source.organization, evidence: evidenceSettings(request) });
  // A read of runs that the pass's end cut short is not partial evidence: the pass ends.
  session.signal?.throwIfAborted();
  if (typeof fresh === 'string') return unplanned('declared', [fresh]);
  const plan = request.saved === undefined ? fresh.plan : savedPlan(request.saved, fresh.plan, fresh.pairing);
  const policySets = fresh.pairing.sets.flatMap((pair) => (pair.declared === null ? [] : [{ name: pair.declared.name, live: pair.live }]));
  const pools = request.poolHealth === true ? { pools: live.pools } : {};
  // A plan with nothing to do is a debug line: an idle daemon finds one at every pass (its warnings are said apart).
  const quiet = plan.changes.length === 0 && plan.errors.length === 0;
  logger[quiet ? 'debug' : (request.appliedLogLevel ?? 'info')]({ source: source.name, changes: plan.changes.length, errors: plan.errors.length }, 'plan made');
  await request.onPlan?.({ ...header, plan });
  if (request.mode === 'plan' || plan.errors.length > 0 || plan.changes.length === 0) {
    return { sourcePlan: { ...header, plan }, results: [], ok: plan.errors.length === 0, policySets, ...pools };
  }

  let done = 0;
  let failed = 0;
  progress('applying', 0, plan.changes.length);
  // The pod's Secret writer, made for this apply only where the source allows Secrets, and closed after it.
  const ownWriter = request.secretWriter === undefined && source.tokenSecrets !== undefined ? inClusterSecretWriter(request.env ?? process.env, SERVICE_ACCOUNT_DIR) : undefined;
  const secretWriter = request.secretWriter ?? ownWriter;
  const halt = [request.stop, session.signal].filter((s): s is AbortSignal => s !== undefined);
  const results = await applyPlan(plan, {
    stop: halt.length === 0 ? undefined : AbortSignal.any(halt),
    api: session.api,
    clock: session,
    organization: source.organization,
    source: source.name,
    ownership: source.ownership,
    logger,
    onUploaded: (policyId, updatedAt, digest) => request.codeCache?.set(policyId, updatedAt, digest),
    concurrency: request.concurrency,
    ...(request.env === undefined ? {} : { env: request.env }),
    ...(source.parameters === undefined ? {} : { parameters: source.parameters }),
    ...(source.tokenDir === undefined ? {} : { tokenDir: source.tokenDir }),
    ...(secretWriter === undefined ? {} : { tokenSecrets: { allowed: source.tokenSecrets ?? [], writer: secretWriter } }),
    ...(request.appliedLogLevel === undefined ? {} : { appliedLogLevel: request.appliedLogLevel }),
    onWave: (name) => {
      wave = name;
      progress('applying', done, plan.changes.length, failed);
    },
    onResult: (result) => {
      if (result.outcome === 'failed') failed += 1;
      progress('applying', Math.min((done += 1), plan.changes.length), plan.changes.length, failed);
    },
  });
  await ownWriter?.close();
  const failures = applyFailures(results, request, session);
  return { sourcePlan: { ...header, plan: { ...plan, errors: [...plan.errors, ...failures] } }, results, ok: failures.length === 0, policySets, ...pools };
}

/** What an apply came to, as the plan's errors: each failed change, and the changes a stop or the pass's end left unstarted. */
function applyFailures(results: readonly ChangeResult[], request: PassRequest, session: PassSession): string[] {
  const failures = results
    .filter((r) => r.outcome === 'failed')
    .map((r) => `${r.change.action} ${r.change.resource} "${r.change.name}" failed: ${r.message ?? 'unknown error'}`);
  const notStarted = results.filter((r) => r.outcome === 'skipped' && r.message === NOT_STARTED);
  if (notStarted.length > 0) {
    const why = session.signal?.aborted === true ? errorMessage(session.signal.reason)
      : request.stop?.aborted === true ? errorMessage(request.stop.reason) : 'the run was stopped';
    const names = notStarted.map((r) => `${r.change.action} ${r.change.resource} "${r.change.name}"`).join(', ');
    failures.push(`${why}; ${count(notStarted.length, 'planned change')} ${notStarted.length === 1 ? 'was' : 'were'} not applied: ${names}`);
  }
  return failures;
}

/**
 * The plan of a saved plan: its changes as the plan made now (`fresh`) has them, each identical to the saved one;
 * otherwise, or when the plan made now is refused (its guards, conflicts), only errors and no change.
 */
function savedPlan(saved: SavedSource, fresh: Plan, pairing: Pairing): Plan {
  const refuse = (errors: string[]): Plan => ({ changes: [], warnings: [], errors });
  if (saved.changes === null || saved.errors.length > 0) {
    return refuse([savedRefusalHead('unusable', 'it cannot be applied; nothing was applied. Make a new plan.')]);
  }
  const checked = checkSavedChanges(saved.changes, fresh.changes, pairing);
  if (checked.changes === null) {
    const stale = checked.refused.filter((line) => line.startsWith('stale: ')).length;
    const head = stale === checked.refused.length
      ? savedRefusalHead('stale', `${stale} of its changes no longer match the live state or the declared repo; nothing was applied. Make a new plan.`)
      : savedRefusalHead('refused', `${checked.refused.length} of its changes are not what a plan made now would do; nothing was applied. Make a new plan.`);
    return refuse([head, ...checked.refused]);
  }
  if (fresh.errors.length > 0) {
    return refuse([savedRefusalHead('refused', 'a plan made now has errors; nothing was applied'), ...fresh.errors]);
  }
  return { changes: checked.changes, warnings: [...saved.warnings], errors: [] };
}

/** The evidence settings of this pass: the request's, else the source's `evidence:` and the defaults, with the run cache. */
function evidenceSettings(request: PassRequest): EvidenceSettings {
  const settings = request.evidence ?? { ...DEFAULT_EVIDENCE, ...request.source.evidence };
  return request.runCache === undefined ? settings : { ...settings, runCache: request.runCache };
}

/** The planner's options of this pass: the source's settings, the run's flags, the session's clock. */
function planOptions(request: PassRequest, session: PassSession): PlanOptions {
  const { source } = request;
  return {
    source: source.name,
    ownership: source.ownership,
    prune: request.prune ?? source.prune,
    allowEmpty: source.allowEmpty,
    maxDeletes: source.maxDeletes,
    force: request.force ?? false,
    adopt: source.adopt,
    now: session.now(),
    ...(request.codeCache === undefined ? {} : { setFiles: (digest: string) => request.codeCache?.setFiles(digest) }),
  };
}

/**
 * A new plan of the declared state against the live state, and the one pairing it was made from (a saved plan is
 * checked against the same pairs); a string when the code texts it shows cannot be read.
 */
async function freshPlan(
  declared: DeclaredState, live: LiveState, options: PlanOptions, where: { api: PolicyApi; organization: string; evidence?: EvidenceSettings | undefined },
): Promise<{ plan: Plan; pairing: Pairing } | string> {
  let shown: DeclaredState;
  const names = resolveNames(declared, live);
  try {
    shown = await withCodeTexts(names.declared, policiesShowingCode(matchPolicies(names.declared.policies, live.policies)));
  } catch (error) {
    return errorMessage(error);
  }
  // The loop is let go between the stages of a large plan (20,000 policies: about 0.1 s of it each), so that the
  // daemon's endpoints answer meanwhile.
  await loopTurn();
  // Runs are read only for the changes that tighten enforcement and the rollouts under way (live/evidence-stage.ts).
  const { plan, pairing } = await planWithEvidence({ ...where, declared: shown, live, options, names, settings: where.evidence ?? DEFAULT_EVIDENCE });
  return { plan: await checkedAgainstLimits(plan, shown, live, where.api, where.organization), pairing };
}
