/**
 * The second step of reading evidence: one run's findings. A stage's `policy-evaluations` relationship names its
 * evaluations, so their set outcomes are read straight away (one request each); the evaluations themselves are listed
 * (one request per stage) only when their statuses matter: the run is still under way, an evaluation has no set
 * outcome (unreachable, errored, or still running), or the stage did not name them. Otherwise an evaluation's status
 * is what its outcomes say. A run is started only once its expected cost can be set aside from the budget.
 */
import { FINAL_RUN_STATUSES } from '../model.js';
import type { RunFindings } from './evidence-types.js';
import { spent } from './evidence-listing.js';
import type { RequestBudget, RequestSpender } from './request-budget.js';
import type { PolicyEvaluation, PolicySetOutcome, Run, RunApi, TaskStage } from './run-types.js';

/** Evaluation statuses after which nothing of an evaluation changes. */
const ENDED = new Set(['passed', 'failed', 'errored', 'unreachable', 'overridden', 'canceled']);
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

/** One request per evaluation a stage names (and one for the stage's list while the run is under way); three for a stage unknown. */
export function expectedCost(run: Run): number {
  if (run.taskStages === null) return 3;
  const underWay = !FINAL_RUN_STATUSES.has(run.status);
  return run.taskStages.reduce((sum, stage) => {
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
  const stages = run.taskStages ?? (await api.listTaskStages(run.id, { budget }));
  const reads: StageRead[] = [];
  for (const stage of stages) reads.push(await readStage(api, run, stage, budget));
  return runFindings(run, reads.flatMap((read) => read.evaluations), reads.flatMap((read) => read.sets));
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

export function runFindings(run: Run, evaluations: ReadonlyArray<Pick<PolicyEvaluation, 'id' | 'status' | 'policyKind'>>, sets: readonly PolicySetOutcome[]): RunFindings {
  return {
    runId: run.id,
    workspaceId: run.workspaceId ?? '',
    createdAt: run.createdAt,
    status: run.status,
    finished: FINAL_RUN_STATUSES.has(run.status) && evaluations.every((evaluation) => ENDED.has(evaluation.status)),
    evaluations: evaluations.map((evaluation) => ({ id: evaluation.id, status: evaluation.status, policyKind: evaluation.policyKind })),
    outcomes: sets.flatMap((set) => set.outcomes.map((outcome) => ({
      policy: outcome.policyName, policySet: set.policySetName, status: outcome.status, enforcementLevel: outcome.enforcementLevel,
    }))),
    setErrors: sets.flatMap((set) => (set.error === null ? [] : [{ policySet: set.policySetName, error: set.error }])),
  };
}
