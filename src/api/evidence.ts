/**
 * `readEvidence`: what the runs of the workspaces in scope say of some policies, read through the run side of the API
 * (runs.ts) within a request budget. First each workspace's runs of the window (one request per workspace for up to
 * 100 runs, task stages included), then the runs newest first across the workspaces (every workspace's newest run
 * before any workspace's second newest), each run's evaluations and set outcomes unless the cache holds its findings.
 * Once the budget is spent nothing more is sent and the readout is `partial`; any other failure rejects.
 */
import { FINAL_RUN_STATUSES } from '../model.js';
import { mapLimit } from '../map-limit.js';
import { createRunCache, type RunCache } from './evidence-cache.js';
import { isComplete, policyEvidence, type WorkspaceRead } from './evidence-summary.js';
import type { EvidenceReadout, RunFindings } from './evidence-types.js';
import { BudgetSpentError, RequestBudget, type RequestSpender } from './request-budget.js';
import type { PolicyEvaluation, PolicySetOutcome, Run, RunApi } from './run-types.js';

export const DEFAULT_EVIDENCE_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_EVIDENCE_BUDGET = 500;
const DEFAULT_CONCURRENCY = 8;

/** Evaluation statuses after which nothing of an evaluation changes. */
const ENDED = new Set(['passed', 'failed', 'errored', 'unreachable', 'overridden', 'canceled']);
/** Evaluation statuses with no set outcome to read. */
const WITHOUT_OUTCOMES = new Set(['pending', 'running', 'unreachable']);

export interface EvidenceOptions {
  organization: string;
  /** The workspaces in scope of any policy asked about; each policy's evidence lists them all, in this order. */
  workspaces: ReadonlyArray<{ id: string; name: string }>;
  /** Policy names. */
  policies: readonly string[];
  /** How far back runs are read. @default DEFAULT_EVIDENCE_WINDOW_MS (30 days) */
  windowMs?: number;
  /** Requests this read may send. @default DEFAULT_EVIDENCE_BUDGET (500) */
  budget?: number;
  /** Findings of finished runs, read and filled; a cold run (CI) passes none. */
  cache?: RunCache;
  /** @default Date.now */
  now?: () => number;
  /** Reads in flight at once (the client's queue and pacer still set the rate). @default 8 */
  concurrency?: number;
}

export async function readEvidence(api: RunApi, options: EvidenceOptions): Promise<EvidenceReadout> {
  const budget = new RequestBudget(options.budget ?? DEFAULT_EVIDENCE_BUDGET);
  const to = (options.now ?? Date.now)();
  const ms = options.windowMs ?? DEFAULT_EVIDENCE_WINDOW_MS;
  const cache = options.cache ?? createRunCache();
  const limit = options.concurrency ?? DEFAULT_CONCURRENCY;
  const lists = await mapLimit(options.workspaces, limit, async (workspace) => {
    const runs = await spent(api.listWorkspaceRuns(workspace.id, { since: to - ms, includeTaskStages: true, budget }));
    return runs?.map((run) => ({ ...run, workspaceId: run.workspaceId ?? workspace.id })) ?? null;
  });
  let cachedRuns = 0;
  const findings = new Map<string, RunFindings | null>();
  await mapLimit(newestFirst(lists), limit, async (run) => {
    const hit = cache.get(run.id);
    if (hit !== undefined) cachedRuns += 1;
    const found = hit ?? (await readWithin(api, run, budget));
    if (found !== null && hit === undefined) cache.put(found);
    findings.set(run.id, found);
  });
  const reads: WorkspaceRead[] = options.workspaces.map((workspace, i) => ({
    workspace, runs: lists[i]?.map((run) => ({ runId: run.id, findings: findings.get(run.id) ?? null })) ?? null,
  }));
  return {
    organization: options.organization,
    window: { from: new Date(to - ms).toISOString(), to: new Date(to).toISOString(), ms },
    policies: options.policies.map((policy) => policyEvidence(policy, reads)),
    workspaces: reads.map((read) => ({
      workspaceId: read.workspace.id, workspaceName: read.workspace.name, runsInWindow: read.runs?.length ?? null,
      runsRead: read.runs?.filter((run) => run.findings !== null).length ?? 0, complete: isComplete(read),
    })),
    partial: reads.some((read) => !isComplete(read)),
    requests: budget.spent,
    budget: budget.limit,
    cachedRuns,
  };
}

/** The value, or null once the budget is spent; every other failure rejects. */
async function spent<T>(reading: Promise<T>): Promise<T | null> {
  try {
    return await reading;
  } catch (error) {
    if (error instanceof BudgetSpentError) return null;
    throw error;
  }
}

/**
 * The run's findings, read once its expected cost (what its included stages say) can be set aside from the budget;
 * null when it cannot, or when the budget runs out all the same (a list with more than one page).
 */
async function readWithin(api: RunApi, run: Run, budget: RequestBudget): Promise<RunFindings | null> {
  const reservation = budget.reserve(expectedCost(run));
  if (reservation === null) return null;
  try {
    return await spent(readRun(api, run, reservation));
  } finally {
    reservation.release();
  }
}

/** One request per stage with evaluations and one per evaluation; a stage not included, or not listing them, counts three. */
function expectedCost(run: Run): number {
  if (run.taskStages === null) return 3;
  return run.taskStages.reduce((sum, stage) => {
    if (stage.policyEvaluationIds === null) return sum + 2;
    return sum + (stage.policyEvaluationIds.length === 0 ? 0 : 1 + stage.policyEvaluationIds.length);
  }, 0);
}

/** Each workspace's newest run, then each one's second newest, and so on. */
function newestFirst(lists: ReadonlyArray<Run[] | null>): Run[] {
  const out: Run[] = [];
  const longest = Math.max(0, ...lists.map((list) => list?.length ?? 0));
  for (let rank = 0; rank < longest; rank += 1) {
    for (const list of lists) {
      const run = list?.[rank];
      if (run !== undefined) out.push(run);
    }
  }
  return out;
}

/** The run's evaluations and their set outcomes; a stage whose relationship lists no evaluation costs no request. */
async function readRun(api: RunApi, run: Run, budget: RequestSpender): Promise<RunFindings> {
  const stages = run.taskStages ?? (await api.listTaskStages(run.id, { budget }));
  const evaluations: PolicyEvaluation[] = [];
  for (const stage of stages) {
    if (stage.policyEvaluationIds !== null && stage.policyEvaluationIds.length === 0) continue;
    evaluations.push(...(await api.listPolicyEvaluations(stage.id, { budget })));
  }
  const sets: PolicySetOutcome[] = [];
  for (const evaluation of evaluations) {
    if (!WITHOUT_OUTCOMES.has(evaluation.status)) sets.push(...(await api.listPolicySetOutcomes(evaluation.id, { budget })));
  }
  return runFindings(run, evaluations, sets);
}

export function runFindings(run: Run, evaluations: readonly PolicyEvaluation[], sets: readonly PolicySetOutcome[]): RunFindings {
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
