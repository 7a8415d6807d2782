/**
 * Runs, their task stages, policy checks, policy evaluations and policy-set outcomes (docs/api-behaviour.md, Runs and
 * policy evaluations). Every list pages as the others do; runs are listed newest first, and the organization's list
 * carries no `total-count` or `total-pages` (go-tfe reads it as `OrganizationRunList`, whose pagination has none). The
 * workspace's list leaves out plan-only runs unless `filter[operation]` names them (`run.mdx`); the organization's
 * list, of which the docs say nothing, shows them.
 */
import { FINAL_RUN_STATUSES } from '../model.js';
import { badRequest, notFound, type Reply } from './http.js';
import { includes, requireOrg } from './lookups.js';
import { paginate } from './pagination.js';
import { evaluationResource, policyCheckOutput, policyCheckResource, runResource, setOutcomeResource, taskStageResource } from './run-documents.js';
import { runOperation, type PolicyCheckRecord, type PolicyOutcomeRecord, type RunRecord, type RunStore } from './run-records.js';
import type { Context, Route } from './router.js';

export const runRoutes: Route[] = [
  { method: 'GET', pattern: '/workspaces/:id/runs', handler: listWorkspaceRuns },
  { method: 'GET', pattern: '/organizations/:org/runs', handler: listOrganizationRuns },
  { method: 'GET', pattern: '/runs/:id', handler: (ctx) => ({ status: 200, body: runDocument(ctx, [requireRun(ctx.store.runs, ctx.params.id)]) }) },
  { method: 'GET', pattern: '/runs/:id/task-stages', handler: listTaskStages },
  { method: 'GET', pattern: '/runs/:id/policy-checks', handler: listPolicyChecks },
  { method: 'GET', pattern: '/policy-checks/:id', handler: (ctx) => ({ status: 200, body: { data: policyCheckResource(requireCheck(ctx)) } }) },
  {
    method: 'GET', pattern: '/policy-checks/:id/output',
    handler: (ctx) => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from(policyCheckOutput(requireCheck(ctx))) }),
  },
  { method: 'GET', pattern: '/task-stages/:id', handler: showTaskStage },
  { method: 'GET', pattern: '/task-stages/:id/policy-evaluations', handler: listEvaluations },
  { method: 'GET', pattern: '/policy-evaluations/:id/policy-set-outcomes', handler: listSetOutcomes },
  { method: 'GET', pattern: '/policy-set-outcomes/:id', handler: showSetOutcome },
];

function requireRun(runs: RunStore, id: string | undefined): RunRecord {
  const run = id === undefined ? undefined : runs.runs.get(id);
  if (run === undefined) throw notFound();
  return run;
}

function requireCheck(ctx: Context): PolicyCheckRecord {
  const check = ctx.store.runs.checks.get(ctx.params.id ?? '');
  if (check === undefined) throw notFound();
  return check;
}

function listPolicyChecks(ctx: Context): Reply {
  const run = requireRun(ctx.store.runs, ctx.params.id);
  const checks = run.checkIds.flatMap((id) => ctx.store.runs.checks.get(id) ?? []);
  const page = paginate(checks, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  return { status: 200, body: { data: page.items.map(policyCheckResource), links: page.links, meta: { pagination: page.pagination } } };
}

/** `filter[operation]`: comma-separated operations; without it, `defaults` (null: every run). */
function operationFilter(ctx: Context, defaults: readonly string[] | null): (run: RunRecord) => boolean {
  const asked = (ctx.query.get('filter[operation]') ?? '').split(',').map((word) => word.trim()).filter((word) => word !== '');
  const allowed = asked.length > 0 ? asked : defaults;
  return (run) => allowed === null || allowed.includes(runOperation(run));
}

/** What the workspace's list shows without `filter[operation]`: every run but the plan-only ones. */
const WORKSPACE_DEFAULT_OPERATIONS = ['plan_and_apply', 'save_plan', 'refresh_only', 'destroy', 'empty_apply'];

/** `filter[status]`: comma-separated run statuses. */
function statusFilter(ctx: Context): (run: RunRecord) => boolean {
  const statuses = (ctx.query.get('filter[status]') ?? '').split(',').map((word) => word.trim()).filter((word) => word !== '');
  return (run) => statuses.length === 0 || statuses.includes(run.status);
}

/** A list document of runs (see runDocument). */
function runListDocument(ctx: Context, runs: readonly RunRecord[], withTotals: boolean): Record<string, unknown> {
  const page = paginate(runs, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const pagination = { ...page.pagination };
  const links = { ...page.links };
  if (!withTotals) {
    delete pagination['total-count'];
    delete pagination['total-pages'];
    delete links.last;
  }
  return { ...runDocument(ctx, page.items, true), links, meta: { pagination } };
}

/**
 * A run document; with `include=task_stages` its stages come in `included`. A list that ignores the include (the
 * behaviour switch) answers no `included`, and each run's `task-stages` relationship empty, as a list that does not
 * load them may: the worst case for a client that reads an empty relationship as "no stages".
 */
function runDocument(ctx: Context, runs: readonly RunRecord[], list = false): Record<string, unknown> {
  const ignored = list && ctx.behaviour.runListsIgnoreInclude;
  const data = runs.map((run) => (ignored ? runResource({ ...run, stageIds: [] }) : runResource(run)));
  const document: Record<string, unknown> = { data: list ? data : data[0] };
  if (!ignored && (includes(ctx.query, 'task_stages') || includes(ctx.query, 'task-stages'))) {
    document.included = runs.flatMap((run) => run.stageIds.flatMap((id) => {
      const stage = ctx.store.runs.stages.get(id);
      return stage === undefined ? [] : [taskStageResource(ctx.store.runs, stage)];
    }));
  }
  return document;
}

function listWorkspaceRuns(ctx: Context): Reply {
  const known = [...ctx.store.orgs.values()].some((org) => org.workspaces.has(ctx.params.id ?? ''));
  if (!known) throw notFound();
  const runs = (ctx.store.runs.byWorkspace.get(ctx.params.id ?? '') ?? []).filter(statusFilter(ctx)).filter(operationFilter(ctx, WORKSPACE_DEFAULT_OPERATIONS));
  return { status: 200, body: runListDocument(ctx, runs, true) };
}

const STATUS_GROUPS: Readonly<Record<string, (status: string) => boolean>> = {
  final: (status) => FINAL_RUN_STATUSES.has(status),
  non_final: (status) => !FINAL_RUN_STATUSES.has(status),
  discardable: (status) => ['planned', 'cost_estimated', 'policy_checked', 'policy_override', 'post_plan_completed', 'planned_and_saved'].includes(status),
};

const YEAR_MS = 365 * 86_400_000;

/**
 * `filter[workspace_names]` (comma-separated, whole names), `filter[status]`, `filter[status_group]` (`final`,
 * `non_final`, `discardable`; another is a 400), `filter[operation]`; without `filter[timeframe]` only the runs of
 * the last 365 days. Newest first across the organization.
 */
function listOrganizationRuns(ctx: Context): Reply {
  const org = requireOrg(ctx.store, ctx.params.org);
  const names = (ctx.query.get('filter[workspace_names]') ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  const group = ctx.query.get('filter[status_group]');
  const inGroup = group === null || group === '' ? () => true : STATUS_GROUPS[group];
  if (inGroup === undefined) throw badRequest(`filter[status_group] must be ${Object.keys(STATUS_GROUPS).join(', ')}`);
  const ids = [...org.workspaces].filter(([, name]) => names.length === 0 || names.includes(name)).map(([id]) => id);
  // Without `filter[timeframe]` the list covers the last year (`run.mdx`); the values it takes are documented nowhere,
  // so any value given lifts the cut.
  const from = ctx.query.get('filter[timeframe]') === null ? ctx.now() - YEAR_MS : -Infinity;
  const runs = ids.flatMap((id) => ctx.store.runs.byWorkspace.get(id) ?? [])
    .filter((run) => run.org === org.name && inGroup(run.status) && Date.parse(run.createdAt) >= from)
    .filter(statusFilter(ctx))
    .filter(operationFilter(ctx, null))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  return { status: 200, body: runListDocument(ctx, runs, false) };
}

function listTaskStages(ctx: Context): Reply {
  const run = requireRun(ctx.store.runs, ctx.params.id);
  const stages = run.stageIds.flatMap((id) => ctx.store.runs.stages.get(id) ?? []);
  const page = paginate(stages, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const data = page.items.map((stage) => taskStageResource(ctx.store.runs, stage));
  return { status: 200, body: { data, links: page.links, meta: { pagination: page.pagination } } };
}

/** `include=policy_evaluations` brings the stage's evaluations in `included`. */
function showTaskStage(ctx: Context): Reply {
  const runs = ctx.store.runs;
  const stage = runs.stages.get(ctx.params.id ?? '');
  if (stage === undefined) throw notFound();
  const body: Record<string, unknown> = { data: taskStageResource(runs, stage) };
  if (includes(ctx.query, 'policy_evaluations')) {
    body.included = stage.evaluationIds.flatMap((id) => {
      const evaluation = runs.evaluations.get(id);
      return evaluation === undefined ? [] : [evaluationResource(runs, evaluation, ctx.behaviour.nativeKind)];
    });
  }
  return { status: 200, body };
}

function listEvaluations(ctx: Context): Reply {
  const runs = ctx.store.runs;
  const stage = runs.stages.get(ctx.params.id ?? '');
  if (stage === undefined) throw notFound();
  const evaluations = stage.evaluationIds.flatMap((id) => runs.evaluations.get(id) ?? []);
  const page = paginate(evaluations, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const data = page.items.map((evaluation) => evaluationResource(runs, evaluation, ctx.behaviour.nativeKind));
  return { status: 200, body: { data, links: page.links, meta: { pagination: page.pagination } } };
}

/** The `filter[N][status]` and `filter[N][enforcement_level]` groups of the query; an entry matches any one group whole. */
function outcomeFilter(query: URLSearchParams): ((outcome: PolicyOutcomeRecord) => boolean) | null {
  const groups = new Map<string, { status?: string; level?: string }>();
  for (const [key, value] of query) {
    const found = /^filter\[([^\]]+)\]\[(status|enforcement_level)\]$/.exec(key);
    if (found === null) continue;
    const group = groups.get(found[1] ?? '') ?? {};
    if (found[2] === 'status') group.status = value;
    else group.level = value;
    groups.set(found[1] ?? '', group);
  }
  if (groups.size === 0) return null;
  // `mandatory` stands for every level but advisory, as the filter takes only the two words.
  const levelMatches = (asked: string, level: string): boolean => asked === level || (asked === 'mandatory' && level !== 'advisory');
  return (outcome) => [...groups.values()].some((group) =>
    (group.status === undefined || group.status === outcome.status) && (group.level === undefined || levelMatches(group.level, outcome.enforcementLevel)));
}

/** A filtered list shows each set only with its matching entries, and leaves out a set with none. */
function listSetOutcomes(ctx: Context): Reply {
  const runs = ctx.store.runs;
  const evaluation = runs.evaluations.get(ctx.params.id ?? '');
  if (evaluation === undefined) throw notFound();
  const matches = outcomeFilter(ctx.query);
  const shown = evaluation.setOutcomeIds.flatMap((id) => {
    const set = runs.setOutcomes.get(id);
    if (set === undefined) return [];
    if (matches === null) return [{ set, outcomes: set.outcomes }];
    const outcomes = set.outcomes.filter(matches);
    return outcomes.length === 0 ? [] : [{ set, outcomes }];
  });
  const page = paginate(shown, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const data = page.items.map(({ set, outcomes }) => setOutcomeResource(set, outcomes));
  return { status: 200, body: { data, links: page.links, meta: { pagination: page.pagination } } };
}

function showSetOutcome(ctx: Context): Reply {
  const set = ctx.store.runs.setOutcomes.get(ctx.params.id ?? '');
  if (set === undefined) throw notFound();
  return { status: 200, body: { data: setOutcomeResource(set) } };
}
