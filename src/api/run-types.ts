/**
 * Runs and what their policy checks and policy evaluations found, as the client reads them (docs/api-behaviour.md,
 * Runs and policy evaluations; go-tfe `run.go`, `task_stages.go`, `policy_evaluation.go`, `policy_check.go`). Words
 * the service sends are kept as sent: a status this tool does not know is never read as a known one.
 */
import type { RequestSpender } from './request-budget.js';

export type TaskStageName = 'pre_plan' | 'post_plan' | 'pre_apply' | 'post_apply';

export type PolicyEvaluationStatus = 'passed' | 'failed' | 'pending' | 'queued' | 'running' | 'unreachable' | 'overridden' | 'canceled' | 'errored';

/** go-tfe `PolicyStatus`. */
export type PolicyCheckStatus = 'pending' | 'queued' | 'passed' | 'soft_failed' | 'hard_failed' | 'overridden' | 'errored' | 'canceled' | 'unreachable';

export type PolicyOutcomeStatus = 'passed' | 'failed' | 'errored';

export interface Run {
  id: string;
  /** The run status word, as sent (`applied`, `planning`, …). */
  status: string;
  /** ISO 8601; '' when the answer carries none. */
  createdAt: string;
  workspaceId: string | null;
  /**
   * The task stages the answer included (`include=task_stages`), in its order; null when it did not include them all
   * (an answer with no `included` at all, as a list that ignores the include sends, says nothing of them).
   */
  taskStages: TaskStage[] | null;
  /** The `policy-checks` relationship's ids; null when the answer leaves it out (read them then). */
  policyCheckIds: string[] | null;
  /** `plan-only`: a speculative plan, which cannot apply. */
  planOnly: boolean;
  /** `refresh-only`: it changes no resource. */
  refreshOnly: boolean;
  /** `is-destroy`. */
  isDestroy: boolean;
  /** `source` (`tfe-api`, `tfe-ui`, `tfe-configuration-version`, …) and `trigger-reason`, as sent; '' when absent. */
  source: string;
  triggerReason: string;
}

/** One policy's result in a check's `sentinel` detail (`sentinel.data.<set>.policies[]`). */
export interface CheckedPolicy {
  policySet: string;
  policy: string;
  /** `result`: true passed, false failed; null when absent. */
  passed: boolean | null;
  /** `allowed-failure` (or `allowed_failure`): an advisory policy, whose failure does not stop the run. */
  allowedFailure: boolean;
  error: string | null;
}

export interface PolicyCheck {
  id: string;
  status: PolicyCheckStatus | (string & {});
  /** The `result` counts; null when the check has no result yet. */
  counts: { passed: number; totalFailed: number; hardFailed: number; softFailed: number; advisoryFailed: number } | null;
  /** Each policy's result from `result.sentinel`; null when the check gives only counts (or a shape not read). */
  policies: CheckedPolicy[] | null;
}

export interface TaskStage {
  id: string;
  stage: TaskStageName | (string & {});
  status: string;
  /** The `policy-evaluations` relationship's ids; null when the answer leaves the relationship out (read them then). */
  policyEvaluationIds: string[] | null;
}

export interface PolicyEvaluation {
  id: string;
  status: PolicyEvaluationStatus | (string & {});
  /** `sentinel`, `native` or `opa`, as sent. */
  policyKind: string;
  /** `advisory-failed`, `mandatory-failed`, `passed`, `errored`; zeros when absent. */
  resultCount: { advisoryFailed: number; mandatoryFailed: number; passed: number; errored: number };
}

export interface PolicyOutcome {
  policyName: string;
  /** As sent: `advisory`, `mandatory`, `soft-mandatory`, `hard-mandatory`, or another word. */
  enforcementLevel: string;
  status: PolicyOutcomeStatus | (string & {});
  description: string | null;
  /** `output[].print`, in order. */
  prints: string[];
}

export interface PolicySetOutcome {
  id: string;
  /** The `policy-evaluation` relationship's id; null when the answer leaves it out. */
  evaluationId: string | null;
  policySetName: string;
  /** The set's error; null when it has none. */
  error: string | null;
  overridable: boolean | null;
  outcomes: PolicyOutcome[];
}

/** Every call of the run side takes a budget: each request it sends spends one, and none is sent once it is spent. */
export interface BudgetOption {
  budget?: RequestSpender;
}

export interface ListRunsOptions extends BudgetOption {
  /** Runs created before this instant are left out, and the list is not read past the first page that reaches one. */
  since?: number;
  /** `include=task_stages`. */
  includeTaskStages?: boolean;
}

export interface ListOrganizationRunsOptions extends ListRunsOptions {
  /** `filter[workspace_names]`: only the runs of these workspaces (names, sent comma-separated). */
  workspaceNames?: readonly string[];
}

/** One `filter[N]` group of a set-outcome list: an entry matches when it matches every key given of any group. */
export interface OutcomeFilter {
  status?: PolicyOutcomeStatus;
  enforcementLevel?: 'advisory' | 'mandatory';
}

/** The run side of the API, one method per endpoint. */
export interface RunApi {
  /** `GET /workspaces/:id/runs`, newest first (see `ListRunsOptions.since`). */
  listWorkspaceRuns(workspaceId: string, options?: ListRunsOptions): Promise<Run[]>;
  /** `GET /organizations/:org/runs`, newest first across the workspaces (see `ListRunsOptions.since`). */
  listOrganizationRuns(organization: string, options?: ListOrganizationRunsOptions): Promise<Run[]>;
  /** `GET /runs/:id/task-stages`. */
  listTaskStages(runId: string, options?: BudgetOption): Promise<TaskStage[]>;
  /** `GET /runs/:id/policy-checks`. */
  listPolicyChecks(runId: string, options?: BudgetOption): Promise<PolicyCheck[]>;
  /** `GET /task-stages/:id/policy-evaluations`. */
  listPolicyEvaluations(taskStageId: string, options?: BudgetOption): Promise<PolicyEvaluation[]>;
  /** `GET /policy-evaluations/:id/policy-set-outcomes`, with `filter[N][status]` and `filter[N][enforcement_level]`. */
  listPolicySetOutcomes(evaluationId: string, options?: BudgetOption & { filters?: readonly OutcomeFilter[] }): Promise<PolicySetOutcome[]>;
  /** `GET /policy-set-outcomes/:id`. */
  getPolicySetOutcome(id: string, options?: BudgetOption): Promise<PolicySetOutcome>;
}
