/**
 * The emulator's runs and what their policy evaluations found (docs/api-behaviour.md, Runs and policy evaluations):
 * a run has task stages, a stage policy evaluations (one per policy kind), an evaluation one outcome per policy set,
 * and a set outcome one entry per policy. Records are kept by id and, for runs, per workspace newest first, so that a
 * list costs the same whatever else the store holds. Change them only through `addRun` and `moveRun`.
 */
import { randomSuffix } from './ids.js';
import type { RecordKind } from './records.js';

/**
 * The run statuses before its `post_plan` stage has ended (go-tfe's `RunStatus` words): its evaluations read `running`
 * with no outcome. At any other status, under way or final (`policy_override`, `planned`, `applying`, …), they have
 * ended and show their outcomes.
 */
const EVALUATING = new Set([
  'pending', 'fetching', 'fetching_completed', 'queuing', 'plan_queued', 'planning', 'pre_plan_running', 'pre_plan_completed',
  'post_plan_running', 'cost_estimating', 'policy_checking',
]);

export type TaskStageName = 'pre_plan' | 'post_plan' | 'pre_apply' | 'post_apply';
export type OutcomeStatus = 'passed' | 'failed' | 'errored';
/** An evaluation's status: from its outcomes, or one of these given outright. */
export type EvaluationStatus = 'passed' | 'failed' | 'errored' | 'unreachable' | 'running' | 'pending' | 'queued' | 'overridden' | 'canceled';
/** A policy check's status (go-tfe `PolicyStatus`): from its outcomes, or one of these given outright. */
export type CheckStatus = 'pending' | 'queued' | 'passed' | 'soft_failed' | 'hard_failed' | 'overridden' | 'errored' | 'canceled' | 'unreachable';
/** A stage's status given outright (one that ended so with no evaluation). */
export type StageStatus = 'errored' | 'unreachable' | 'canceled';

export interface PolicyOutcomeRecord {
  policyName: string;
  /** The level the policy had when the run evaluated it. */
  enforcementLevel: string;
  status: OutcomeStatus;
  description: string | null;
  query: string | null;
  /** Lines the policy printed (`output[].print`). */
  prints: string[];
}

export interface SetOutcomeRecord {
  id: string;
  evaluationId: string;
  setName: string;
  setDescription: string | null;
  overridable: boolean | null;
  /** The set's error; its outcomes are then empty. */
  error: string | null;
  outcomes: PolicyOutcomeRecord[];
}

export interface EvaluationRecord {
  id: string;
  stageId: string;
  kind: RecordKind;
  status: EvaluationStatus;
  createdAt: string;
  /** Answered once the run is past its evaluation; until then the evaluation is `running` and has none. */
  setOutcomeIds: string[];
}

export interface TaskStageRecord {
  id: string;
  runId: string;
  stage: TaskStageName;
  createdAt: string;
  evaluationIds: string[];
  /** Given outright; absent: the worst of its evaluations' (run-documents.ts). */
  status?: StageStatus;
}

/**
 * A Sentinel policy check of a run (the sets that are not agent-enabled): one per run, its sets' outcomes in the
 * `sentinel` object of its `result` unless `detail` is false (then only the counts).
 */
export interface PolicyCheckRecord {
  id: string;
  runId: string;
  status: CheckStatus;
  createdAt: string;
  /** Answered once the run is past its policy check; until then the check is `queued` and has none. */
  sets: Array<{ setName: string; outcomes: PolicyOutcomeRecord[] }>;
  detail: boolean;
}

/** What kind of run it is (go-tfe `Run`: `plan-only`, `is-destroy`, `refresh-only`, `source`, `trigger-reason`). */
export interface RunKind {
  planOnly: boolean;
  isDestroy: boolean;
  refreshOnly: boolean;
  source: string;
  triggerReason: string;
}

export const APPLYING_RUN: RunKind = { planOnly: false, isDestroy: false, refreshOnly: false, source: 'tfe-api', triggerReason: 'manual' };

export interface RunRecord extends RunKind {
  id: string;
  org: string;
  workspaceId: string;
  status: string;
  createdAt: string;
  stageIds: string[];
  checkIds: string[];
}

/** The operation a run's kind stands for, as `filter[operation]` names it. */
export function runOperation(run: RunKind): string {
  if (run.planOnly) return 'plan_only';
  if (run.refreshOnly) return 'refresh_only';
  if (run.isDestroy) return 'destroy';
  return 'plan_and_apply';
}

export interface RunStore {
  runs: Map<string, RunRecord>;
  /** Per workspace, newest first. */
  byWorkspace: Map<string, RunRecord[]>;
  stages: Map<string, TaskStageRecord>;
  evaluations: Map<string, EvaluationRecord>;
  setOutcomes: Map<string, SetOutcomeRecord>;
  checks: Map<string, PolicyCheckRecord>;
  /** The outcome of each check of a run still checking, shown once it moves past that (`moveRun`). */
  heldChecks: Map<string, Array<{ checkId: string; status: CheckStatus; sets: PolicyCheckRecord['sets'] }>>;
  /** The set outcomes of a run still evaluating, shown once it moves past that (`moveRun`). */
  held: Map<string, { evaluationId: string; status: EvaluationStatus; outcomes: SetOutcomeRecord[] }[]>;
}

export function createRunStore(): RunStore {
  return {
    runs: new Map(), byWorkspace: new Map(), stages: new Map(), evaluations: new Map(), setOutcomes: new Map(), checks: new Map(), heldChecks: new Map(), held: new Map(),
  };
}

/** One policy evaluation of a run: its kind, and either its set outcomes or a status given outright. */
export interface EvaluationSpec {
  kind: RecordKind;
  /**
   * `unreachable`, `errored` or `canceled`: the evaluation ended so (an errored one's sets carry an error and no
   * outcome); `queued`: it never started.
   */
  status?: 'unreachable' | 'errored' | 'canceled' | 'queued';
  sets: Array<Omit<SetOutcomeRecord, 'id' | 'evaluationId'>>;
}

/** A run's policy check: its sets' outcomes, or a status given outright; `detail: false` answers only the counts. */
export interface CheckSpec {
  status?: 'errored' | 'unreachable' | 'canceled' | 'overridden';
  sets: PolicyCheckRecord['sets'];
  detail: boolean;
}

export interface RunSpec {
  id?: string;
  org: string;
  workspaceId: string;
  createdAt: string;
  status: string;
  evaluations: EvaluationSpec[];
  /** The policy check of its Sentinel sets that are not agent-enabled; absent: none. */
  check?: CheckSpec;
  /** @default APPLYING_RUN */
  kind?: Partial<RunKind>;
  /** The `post_plan` stage ended so with no evaluation. */
  stageStatus?: StageStatus;
}

/**
 * Adds the run: a `pre_plan` stage with no evaluation, a `post_plan` stage with the evaluations, and the policy check
 * of its Sentinel sets that are not agent-enabled.
 */
export function addRun(store: RunStore, spec: RunSpec): RunRecord {
  const run: RunRecord = {
    ...APPLYING_RUN, ...spec.kind,
    id: spec.id ?? `run-${randomSuffix()}`, org: spec.org, workspaceId: spec.workspaceId, status: spec.status, createdAt: spec.createdAt, stageIds: [], checkIds: [],
  };
  const prePlan: TaskStageRecord = { id: `ts-${randomSuffix()}`, runId: run.id, stage: 'pre_plan', createdAt: spec.createdAt, evaluationIds: [] };
  const postPlan: TaskStageRecord = {
    id: `ts-${randomSuffix()}`, runId: run.id, stage: 'post_plan', createdAt: spec.createdAt, evaluationIds: [], ...(spec.stageStatus === undefined ? {} : { status: spec.stageStatus }),
  };
  if (spec.check !== undefined) addCheck(store, run, spec.check);
  const held: NonNullable<ReturnType<RunStore['held']['get']>> = [];
  for (const evaluation of spec.evaluations) {
    const record: EvaluationRecord = { id: `poleval-${randomSuffix()}`, stageId: postPlan.id, kind: evaluation.kind, status: 'running', createdAt: spec.createdAt, setOutcomeIds: [] };
    const outcomes = evaluation.status === 'unreachable' || evaluation.status === 'queued' || evaluation.status === 'canceled' ? [] : evaluation.sets.map((set) => ({
      ...set, id: `psout-${randomSuffix()}`, evaluationId: record.id,
      ...(evaluation.status === 'errored' ? { error: set.error ?? 'the policy evaluation errored', outcomes: [] } : {}),
    }));
    held.push({ evaluationId: record.id, status: evaluation.status ?? statusOf(outcomes), outcomes });
    store.evaluations.set(record.id, record);
    postPlan.evaluationIds.push(record.id);
  }
  for (const stage of [prePlan, postPlan]) {
    store.stages.set(stage.id, stage);
    run.stageIds.push(stage.id);
  }
  store.runs.set(run.id, run);
  const list = store.byWorkspace.get(run.workspaceId) ?? [];
  list.push(run);
  list.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  store.byWorkspace.set(run.workspaceId, list);
  store.held.set(run.id, held);
  moveRun(store, run, run.status);
  return run;
}

/** Moves the run to `status`; once past its policy evaluation, its evaluations end and their set outcomes are answered. */
export function moveRun(store: RunStore, run: RunRecord, status: string): void {
  run.status = status;
  if (EVALUATING.has(status)) return;
  for (const { evaluationId, status: ended, outcomes } of store.held.get(run.id) ?? []) {
    const evaluation = store.evaluations.get(evaluationId);
    if (evaluation === undefined) continue;
    evaluation.status = ended;
    for (const outcome of outcomes) {
      store.setOutcomes.set(outcome.id, outcome);
      evaluation.setOutcomeIds.push(outcome.id);
    }
  }
  store.held.delete(run.id);
  for (const { checkId, status: ended, sets } of store.heldChecks.get(run.id) ?? []) {
    const check = store.checks.get(checkId);
    if (check === undefined) continue;
    check.status = ended;
    check.sets = sets;
  }
  store.heldChecks.delete(run.id);
}

function addCheck(store: RunStore, run: RunRecord, spec: CheckSpec): void {
  const check: PolicyCheckRecord = { id: `polchk-${randomSuffix()}`, runId: run.id, status: 'queued', createdAt: run.createdAt, sets: [], detail: spec.detail };
  const sets = spec.status === 'unreachable' || spec.status === 'canceled' ? [] : spec.sets;
  const ended: CheckStatus = spec.status ?? checkStatusOf(sets.flatMap((set) => set.outcomes));
  store.checks.set(check.id, check);
  run.checkIds.push(check.id);
  store.heldChecks.set(run.id, [{ checkId: check.id, status: ended, sets: spec.status === 'errored' ? [] : sets }]);
}

/**
 * A check's status from its outcomes (`policy-checks.mdx`): `hard_failed` when a hard-mandatory policy failed (or
 * errored), `soft_failed` when a soft-mandatory one did, else `passed` (an advisory failure passes).
 */
function checkStatusOf(outcomes: readonly PolicyOutcomeRecord[]): CheckStatus {
  const failed = outcomes.filter((outcome) => outcome.status !== 'passed' && outcome.enforcementLevel !== 'advisory');
  if (failed.some((outcome) => outcome.enforcementLevel !== 'soft-mandatory')) return 'hard_failed';
  if (failed.length > 0) return 'soft_failed';
  return 'passed';
}

/** A check's `result` counts (`policy-checks.mdx`: `passed`, `total-failed`, `hard-failed`, `soft-failed`, `advisory-failed`). */
export function checkCounts(check: PolicyCheckRecord): Record<string, number | boolean> {
  const outcomes = check.sets.flatMap((set) => set.outcomes);
  const failed = outcomes.filter((outcome) => outcome.status !== 'passed');
  const at = (level: string) => failed.filter((outcome) => outcome.enforcementLevel === level).length;
  const advisory = at('advisory');
  const soft = at('soft-mandatory');
  return {
    result: failed.length === advisory && check.status !== 'errored',
    passed: outcomes.length - failed.length,
    'total-failed': failed.length,
    'hard-failed': failed.length - advisory - soft,
    'soft-failed': soft,
    'advisory-failed': advisory,
    'duration-ms': 0,
  };
}

/** `failed` when a mandatory policy failed, `errored` when a set or a policy errored and none failed, else `passed`. */
function statusOf(outcomes: SetOutcomeRecord[]): EvaluationStatus {
  const all = outcomes.flatMap((set) => set.outcomes);
  if (all.some((outcome) => outcome.status === 'failed' && outcome.enforcementLevel !== 'advisory')) return 'failed';
  if (outcomes.some((set) => set.error !== null) || all.some((outcome) => outcome.status === 'errored')) return 'errored';
  return 'passed';
}

/** `advisory-failed`, `mandatory-failed`, `passed`, `errored` of a list of outcomes. */
export function resultCount(outcomes: readonly PolicyOutcomeRecord[]): Record<string, number> {
  const failed = outcomes.filter((outcome) => outcome.status === 'failed');
  return {
    'advisory-failed': failed.filter((outcome) => outcome.enforcementLevel === 'advisory').length,
    'mandatory-failed': failed.filter((outcome) => outcome.enforcementLevel !== 'advisory').length,
    passed: outcomes.filter((outcome) => outcome.status === 'passed').length,
    errored: outcomes.filter((outcome) => outcome.status === 'errored').length,
  };
}
