/**
 * The run side of the API, one method per endpoint (see RunApi in run-types.ts): runs, their task stages, policy
 * evaluations and policy-set outcomes. It shares the client's transport and signal, so its requests take the same
 * queue, pacer and retries as every other; each call given a budget spends it per request sent. Every id goes into a
 * URL through `idSegment` (ids.ts): another shape is refused before any request.
 */
import { idSegment } from './ids.js';
import { primary } from './json-api.js';
import { listAll, type ListTransport } from './paginate.js';
import { readWith } from './responses.js';
import { parsePolicyCheck, parsePolicyEvaluation, parsePolicySetOutcome, parseRun, parseTaskStage } from './run-resources.js';
import type {
  BudgetOption, ListOrganizationRunsOptions, ListRunsOptions, OutcomeFilter, PolicyCheck, PolicyEvaluation, PolicySetOutcome, Run, RunApi, TaskStage,
} from './run-types.js';
import type { Transport } from './transport.js';

type Params = Array<readonly [string, string]>;

/** go-tfe's `RunOperation` words and the docs' `action_only`: every run a workspace has. */
const ALL_OPERATIONS = 'plan_and_apply,plan_only,save_plan,refresh_only,destroy,empty_apply,action_only';

export class RunEndpoints implements RunApi {
  constructor(private readonly transport: Transport, private readonly signal: AbortSignal | undefined) {}

  private via(options: BudgetOption | undefined): ListTransport {
    return options?.budget === undefined ? this.transport : options.budget.view(this.transport);
  }

  /** Every operation, plan-only runs too, which the list leaves out unless `filter[operation]` names them (`run.mdx`). */
  async listWorkspaceRuns(workspaceId: string, options: ListRunsOptions = {}): Promise<Run[]> {
    return this.runsSince(`/workspaces/${idSegment('workspace', workspaceId)}/runs`, [['filter[operation]', ALL_OPERATIONS]], options);
  }

  async listOrganizationRuns(organization: string, options: ListOrganizationRunsOptions = {}): Promise<Run[]> {
    const names = options.workspaceNames ?? [];
    const params: Params = names.length === 0 ? [] : [['filter[workspace_names]', names.join(',')]];
    return this.runsSince(`/organizations/${encodeURIComponent(organization)}/runs`, params, options);
  }

  /**
   * Newest first by `created-at`, whatever order the runs came in (no document states it). The list is read no further
   * than the first page that reaches a run older than `since` (the service's pages run newest first, as its answers
   * show: docs/api-behaviour.md), and such runs are left out.
   */
  private async runsSince(path: string, params: Params, options: ListRunsOptions): Promise<Run[]> {
    const all: Params = [...params, ...(options.includeTaskStages === true ? [['include', 'task_stages'] as const] : [])];
    const since = options.since;
    const older = (run: Run): boolean => since !== undefined && Date.parse(run.createdAt) < since;
    const pages = await listAll(this.via(options), this.signal, path, all, parseRun, (page) => page.items.some(older));
    return pages.flatMap((page) => page.items).filter((run) => !older(run)).sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  }

  async listPolicyChecks(runId: string, options?: BudgetOption): Promise<PolicyCheck[]> {
    const pages = await listAll(this.via(options), this.signal, `/runs/${idSegment('run', runId)}/policy-checks`, [], parsePolicyCheck);
    return pages.flatMap((page) => page.items);
  }

  async listTaskStages(runId: string, options?: BudgetOption): Promise<TaskStage[]> {
    const pages = await listAll(this.via(options), this.signal, `/runs/${idSegment('run', runId)}/task-stages`, [], parseTaskStage);
    return pages.flatMap((page) => page.items);
  }

  async listPolicyEvaluations(taskStageId: string, options?: BudgetOption): Promise<PolicyEvaluation[]> {
    const path = `/task-stages/${idSegment('task-stage', taskStageId)}/policy-evaluations`;
    const pages = await listAll(this.via(options), this.signal, path, [], parsePolicyEvaluation);
    return pages.flatMap((page) => page.items);
  }

  async listPolicySetOutcomes(evaluationId: string, options: BudgetOption & { filters?: readonly OutcomeFilter[] } = {}): Promise<PolicySetOutcome[]> {
    const params: Params = (options.filters ?? []).flatMap((filter, n) => [
      ...(filter.status === undefined ? [] : [[`filter[${n}][status]`, filter.status] as const]),
      ...(filter.enforcementLevel === undefined ? [] : [[`filter[${n}][enforcement_level]`, filter.enforcementLevel] as const]),
    ]);
    const path = `/policy-evaluations/${idSegment('policy-evaluation', evaluationId)}/policy-set-outcomes`;
    const pages = await listAll(this.via(options), this.signal, path, params, parsePolicySetOutcome);
    return pages.flatMap((page) => page.items);
  }

  async getPolicySetOutcome(id: string, options?: BudgetOption): Promise<PolicySetOutcome> {
    const transport = this.via(options);
    const response = await transport.send({ method: 'GET', url: transport.url(`/policy-set-outcomes/${idSegment('policy-set-outcome', id)}`) }, this.signal);
    return readWith(response, (body) => parsePolicySetOutcome(primary(body)));
  }
}
