/**
 * The second step of reading evidence: one run's findings. Its policy checks (the Sentinel sets that are not
 * agent-enabled) are one list request when its `policy-checks` relationship names any, or leaves the relationship out;
 * none when it names none. A stage's `policy-evaluations` relationship names its
 * evaluations, so their set outcomes are read straight away (one request each); the evaluations themselves are listed
 * (one request per stage) only when their statuses matter: the run is still under way, an evaluation has no set
 * outcome (unreachable, errored, or still running), or the stage did not name them. Otherwise an evaluation's status
 * is what its outcomes say. A run is started only once its expected cost can be set aside from the budget.
 */
import { FINAL_RUN_STATUSES } from '../model.js';
import type { RunFindings } from './evidence-types.js';
import { spent } from './evidence-listing.js';
import type { RequestBudget, RequestSpender } from './request-budget.js';
import type { PolicyCheck, PolicyEvaluation, PolicySetOutcome, Run, RunApi, TaskStage } from './run-types.js';

/** Evaluation statuses after which nothing of an evaluation changes; any other word (`queued`, one not known) may still. */
const ENDED = new Set(['passed', 'failed', 'errored', 'unreachable', 'overridden', 'canceled']);
/** Policy check statuses after which nothing of a check changes. */
const CHECK_ENDED = new Set(['passed', 'soft_failed', 'hard_failed', 'overridden', 'errored', 'canceled', 'unreachable']);
/** Evaluation statuses with no set outcome to read. */
const WITHOUT_OUTCOMES = new Set(['pending', 'running', 'unreachable']);

/** The run's findings, or null when its expected cost cannot be set aside, or the budget runs out all the same. */
export async function readWithin(api: RunApi, run: Run, budget: RequestBudget): Promise<RunFindings | null> {
  const reservation = budget.reserve(expectedCost(run));
  if (reservation === null) return null;
  try {
    return await spent(readRun(api, run, reservation));
  } finally {
    reservation.release();
  }
}

/**
 * One request for the checks unless the run names none; one per evaluation a stage names (and one for the stage's
 * list while the run is under way); three for stages unknown.
 */
export function expectedCost(run: Run): number {
  const checks = run.policyCheckIds === null || run.policyCheckIds.length > 0 ? 1 : 0;
  if (run.taskStages === null) return checks + 3;
  const underWay = !FINAL_RUN_STATUSES.has(run.status);
  return checks + run.taskStages.reduce((sum, stage) => {
    const ids = stage.policyEvaluationIds;
    if (ids === null) return sum + 2;
    return sum + (ids.length === 0 ? 0 : ids.length + (underWay ? 1 : 0));
  }, 0);
}

interface StageRead {
  evaluations: Array<Pick<PolicyEvaluation, 'id' | 'status' | 'policyKind'>>;
  sets: PolicySetOutcome[];
}

async function readRun(api: RunApi, run: Run, budget: RequestSpender): Promise<RunFindings> {
  const checks = run.policyCheckIds !== null && run.policyCheckIds.length === 0 ? [] : await api.listPolicyChecks(run.id, { budget });
  const stages = run.taskStages ?? (await api.listTaskStages(run.id, { budget }));
  const reads: StageRead[] = [];
  for (const stage of stages) reads.push(await readStage(api, run, stage, budget));
  return runFindings(run, reads.flatMap((read) => read.evaluations), reads.flatMap((read) => read.sets), checks, stages);
}

async function readStage(api: RunApi, run: Run, stage: TaskStage, budget: RequestSpender): Promise<StageRead> {
  if (stage.policyEvaluationIds !== null && stage.policyEvaluationIds.length === 0) return { evaluations: [], sets: [] };
  const listed = stage.policyEvaluationIds === null ? await api.listPolicyEvaluations(stage.id, { budget }) : null;
  const ids = listed?.map((evaluation) => evaluation.id) ?? stage.policyEvaluationIds ?? [];
  const byEvaluation = new Map<string, PolicySetOutcome[]>();
  for (const id of ids) {
    const status = listed?.find((evaluation) => evaluation.id === id)?.status;
    byEvaluation.set(id, status !== undefined && WITHOUT_OUTCOMES.has(status) ? [] : await api.listPolicySetOutcomes(id, { budget }));
  }
  const sets = [...byEvaluation.values()].flat();
  const needStatuses = !FINAL_RUN_STATUSES.has(run.status) || [...byEvaluation.values()].some((list) => list.length === 0);
  if (listed !== null || !needStatuses) {
    const evaluations = listed ?? ids.map((id) => ({ id, status: statusOf(byEvaluation.get(id) ?? []), policyKind: '' }));
    return { evaluations, sets };
  }
  return { evaluations: await api.listPolicyEvaluations(stage.id, { budget }), sets };
}

/** What an evaluation's set outcomes say of its status: failed above advisory, else errored, else passed. */
function statusOf(sets: readonly PolicySetOutcome[]): string {
  const outcomes = sets.flatMap((set) => set.outcomes);
  if (outcomes.some((outcome) => outcome.status === 'failed' && outcome.enforcementLevel !== 'advisory')) return 'failed';
  if (sets.some((set) => set.error !== null) || outcomes.some((outcome) => outcome.status !== 'passed' && outcome.status !== 'failed')) return 'errored';
  return 'passed';
}

/** A stage that ended so says the policies it would have evaluated were not: they count as such, never as clean. */
const STAGE_ENDED_SHORT = new Set(['errored', 'unreachable', 'canceled']);

export function runFindings(
  run: Run, evaluations: ReadonlyArray<Pick<PolicyEvaluation, 'id' | 'status' | 'policyKind'>>, sets: readonly PolicySetOutcome[],
  checks: readonly PolicyCheck[] = [], stages: readonly Pick<TaskStage, 'stage' | 'status' | 'policyEvaluationIds'>[] = [],
): RunFindings {
  const kindOf = new Map(evaluations.map((evaluation) => [evaluation.id, evaluation.policyKind]));
  return {
    runId: run.id,
    workspaceId: run.workspaceId ?? '',
    createdAt: run.createdAt,
    status: run.status,
    finished: FINAL_RUN_STATUSES.has(run.status) && evaluations.every((evaluation) => ENDED.has(evaluation.status)) && checks.every((check) => CHECK_ENDED.has(check.status)),
    kind: { planOnly: run.planOnly, refreshOnly: run.refreshOnly, isDestroy: run.isDestroy, source: run.source, triggerReason: run.triggerReason },
    evaluations: evaluations.map((evaluation) => ({ id: evaluation.id, status: evaluation.status, policyKind: evaluation.policyKind })),
    outcomes: [
      ...sets.flatMap((set) => set.outcomes.map((outcome) => ({
        policy: outcome.policyName, policySet: set.policySetName, status: outcome.status, enforcementLevel: outcome.enforcementLevel, via: 'evaluation' as const,
        kind: kindOf.get(set.evaluationId ?? '') ?? '',
      }))),
      ...checks.flatMap((check) => (check.policies ?? []).map((policy) => ({
        policy: policy.policy, policySet: policy.policySet, status: policy.error !== null ? 'errored' : policy.passed === true ? 'passed' : policy.passed === false ? 'failed' : '',
        enforcementLevel: policy.allowedFailure ? 'advisory' : '', via: 'check' as const, kind: 'sentinel',
      }))),
    ],
    setErrors: sets.flatMap((set) => (set.error === null ? [] : [{ policySet: set.policySetName, error: set.error }])),
    checks: checks.map((check) => ({ id: check.id, status: check.status, detail: check.policies !== null, failed: check.counts?.totalFailed ?? 0 })),
    stages: stages.filter((stage) => STAGE_ENDED_SHORT.has(stage.status) && (stage.policyEvaluationIds ?? []).length === 0).map((stage) => ({ stage: stage.stage, status: stage.status })),
  };
}
