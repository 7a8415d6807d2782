import type { PolicyApi } from './api/types.js';
import { applyPlan } from './apply/apply.js';
import type { ApplyResult } from './apply/types.js';
import type { SourceConfig } from './config/types.js';
import { readDeclared } from './declared/index.js';
import type { DeclaredState } from './declared/types.js';
import { errorMessage, formatProblem, ValidationError } from './errors.js';
import { readLive } from './live/read-live.js';
import type { CodeCache } from './live/code-cache.js';
import type { Logger } from './logger.js';
import { planChanges } from './plan/plan.js';
import type { Plan, SourcePlan } from './plan/types.js';

export { createCodeCache, type CodeCache } from './live/code-cache.js';

export interface PassRequest {
  source: SourceConfig;
  /** Folder holding the declared tree. */
  dir: string;
  /** Git commit, or null for a local folder. */
  revision: string | null;
  api: PolicyApi;
  logger: Logger;
  mode: 'plan' | 'apply';
  /** Overrides `source.prune` when set (`--prune`). */
  prune?: boolean;
  force?: boolean;
  codeCache?: CodeCache;
  now?: () => number;
}

export interface PassOutcome {
  sourcePlan: SourcePlan;
  /** null in plan mode, or when nothing was applied. */
  apply: ApplyResult | null;
  /** false when the repo was invalid, a read failed, a guard refused, or an action failed. */
  ok: boolean;
  driftCount: number;
}

/** One reconcile pass over one source: read the declared repo, read the live state, plan, then apply that plan. */
export async function runPass(request: PassRequest): Promise<PassOutcome> {
  const { source, logger } = request;
  const outcome = (plan: Plan, apply: ApplyResult | null = null): PassOutcome => ({
    sourcePlan: { name: source.name, organization: source.organization, revision: request.revision, plan },
    apply,
    ok: plan.errors.length === 0 && (apply === null || apply.failed === 0),
    driftCount: plan.changes.length,
  });
  const failed = (errors: string[]): PassOutcome => outcome({ changes: [], warnings: [], errors });

  let declared: DeclaredState;
  try {
    declared = await readDeclared(request.dir, { maxAgentPools: source.maxAgentPools });
  } catch (error) {
    if (error instanceof ValidationError) return failed(error.problems.map(formatProblem));
    throw error;
  }

  let plan: Plan;
  try {
    const live = await readLive({ api: request.api, organization: source.organization, declared, logger, codeCache: request.codeCache });
    plan = planChanges(declared, live, {
      source: source.name,
      ownership: source.ownership,
      prune: request.prune ?? source.prune,
      allowEmpty: source.allowEmpty,
      maxDeletes: source.maxDeletes,
      force: request.force ?? false,
      now: (request.now ?? Date.now)(),
    });
  } catch (error) {
    return failed([`reading the live state of organization ${source.organization} failed: ${errorMessage(error)}`]);
  }
  logger.info({ source: source.name, changes: plan.changes.length, errors: plan.errors.length }, 'plan made');
  if (request.mode === 'plan' || plan.errors.length > 0 || plan.changes.length === 0) return outcome(plan);

  const apply = await applyPlan(plan, {
    api: request.api,
    organization: source.organization,
    source: source.name,
    ownership: source.ownership,
    logger,
  });
  const failures = apply.results
    .filter((r) => r.outcome === 'failed')
    .map((r) => `${r.change.action} ${r.change.resource} "${r.change.name}" failed: ${r.message ?? 'unknown error'}`);
  return outcome({ ...plan, errors: [...plan.errors, ...failures] }, apply);
}
