import type { Change, ChangeOutcome, ChangeResult, SourcePlan } from '../plan/types.js';
import { plainFields } from '../plan/plain-fields.js';
import type { RolloutStatus } from '../plan/rollout.js';
import { sourceErrors, summarize } from './describe.js';
import { holdOf, planWarnings } from './enforcement-words.js';
import type { ChangeEvidence } from '../plan/evidence.js';

/** A change's fields as the JSON plan shows them: code as its digest, size and lines. */
export const jsonFields = plainFields;

/** Key order is fixed by construction: the JSON plan is byte-for-byte deterministic. */
function jsonChange(change: Change, rollouts: readonly RolloutStatus[]): unknown {
  const fields = jsonFields(change);
  return {
    resource: change.resource,
    name: change.name,
    id: change.id,
    action: change.action,
    reason: change.reason,
    fields,
    ...((change.resource === 'policy-set' || change.resource === 'agent-pool') && change.scope !== undefined ? { scope: change.scope } : {}),
    ...(change.evidence === undefined ? {} : { evidence: jsonEvidence(change, change.evidence, rollouts) }),
  };
}

/** A change's evidence; held by a rollout, with `held_at`: the level applied now (its `blocking` is then whom promotion would block). */
function jsonEvidence(change: Change, evidence: ChangeEvidence, rollouts: readonly RolloutStatus[]): unknown {
  const hold = holdOf(change, rollouts);
  return hold === null || hold.blocking.length === 0 ? evidence : { ...evidence, held_at: hold.start };
}

/** A rollout as the JSON plan and the saved plan show it (schemas/plan.schema.json `rollout`). */
export function jsonRollout(s: RolloutStatus): JsonRollout {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    policy: s.policy, ...(s.set === undefined ? {} : { set: s.set }), state: s.state, start: s.start, level: s.level, started_at: iso(s.startedAt), ready_at: iso(s.readyAt), waiting: s.waiting,
    clean_runs: s.cleanRuns, needed_runs: s.neededRuns, failing: s.failing, allowed_failing: s.allowedFailing, errored: s.errored, partial: s.partial,
    ...(s.inScope === undefined ? {} : { in_scope: s.inScope, evaluated: s.evaluated, not_evaluated: s.notEvaluated }),
  };
}

/** schemas/plan.schema.json `rollout`. */
export interface JsonRollout {
  policy: string;
  set?: string;
  state: RolloutStatus['state'];
  start: RolloutStatus['start'];
  level: RolloutStatus['level'];
  started_at: string;
  ready_at: string;
  waiting: boolean;
  clean_runs: number;
  needed_runs: number;
  failing: string[];
  allowed_failing: number;
  errored: string[];
  partial: boolean;
}

/** A saved plan's rollout (checked against the schema as it was read) as the renderers read a fresh plan's. */
export function rolloutFromJson(r: JsonRollout): RolloutStatus {
  return {
    policy: r.policy, ...(r.set === undefined ? {} : { set: r.set }), state: r.state, start: r.start, level: r.level, startedAt: Date.parse(r.started_at), readyAt: Date.parse(r.ready_at), waiting: r.waiting,
    cleanRuns: r.clean_runs, neededRuns: r.needed_runs, failing: [...r.failing], allowedFailing: r.allowed_failing, errored: [...r.errored], partial: r.partial,
  };
}

export interface JsonOptions {
  /**
   * After an apply (`--reconcile`): each source's change results, by index of `plans`. Every change then carries
   * `outcome` and `message`, and the document a `result` summary. A change with no result was not applied (`skipped`).
   */
  results?: ReadonlyArray<readonly ChangeResult[]>;
}

const NOT_APPLIED = 'not applied: the plan of this source has errors';

/**
 * The JSON plan (`--output json`, README: Plan formats), `format_version` "1". Every field that differs is there; code
 * is described by its digest, size and line count, never carried whole (a plan over large policies stays small).
 */
export function renderJson(plans: readonly SourcePlan[], options: JsonOptions = {}): string {
  const summary = summarize(plans);
  const result: Record<ChangeOutcome, number> = { applied: 0, failed: 0, skipped: 0 };
  const document = {
    format_version: '1',
    sources: plans.map((source, index) => {
      const results = new Map((options.results?.[index] ?? []).map((r) => [r.change, r]));
      const rollouts = source.plan?.rollouts ?? [];
      const changes = (source.plan?.changes ?? []).map((change) => {
        if (options.results === undefined) return jsonChange(change, rollouts);
        const found = results.get(change);
        const outcome = found?.outcome ?? 'skipped';
        result[outcome] += 1;
        return { ...(jsonChange(change, rollouts) as object), outcome, message: found === undefined ? NOT_APPLIED : found.message };
      });
      return {
        name: source.name,
        organization: source.organization,
        revision: source.revision,
        changes,
        ...((source.plan?.rollouts ?? []).length === 0 ? {} : { rollouts: source.plan!.rollouts!.map(jsonRollout) }),
        ...((source.plan?.tokens ?? []).length === 0 ? {} : { tokens: source.plan!.tokens!.map((t) => ({ ...t })) }),
        warnings: source.plan === null ? [] : planWarnings(source.plan),
        errors: [...sourceErrors(source)],
      };
    }),
    summary: { create: summary.create, update: summary.update, replace: summary.replace, delete: summary.delete },
    ...(options.results === undefined ? {} : { result }),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
