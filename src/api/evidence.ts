/**
 * `readEvidence`: what the runs of the workspaces in scope say of some policies, read through the run side of the API
 * (runs.ts) within a request budget. First the runs of the window the organization's list gives (evidence-listing.ts:
 * many workspaces a request, task stages asked for), read newest first across the workspaces (every workspace's newest
 * run before any workspace's second newest), each run's checks and set outcomes (evidence-runs.ts) unless the cache
 * holds its findings; then the workspaces it gave no run, each through its own list, and their runs the same way.
 * Once the budget (of requests, or of time) is spent nothing more is sent and the readout is `partial`; any other
 * failure rejects.
 */
import { setMaxListeners } from 'node:events';
import { mapLimit } from '../map-limit.js';
import { createRunCache, type RunCache } from './evidence-cache.js';
import { listByOrganization, listOwn, type EvidenceListing } from './evidence-listing.js';
import { readWithin as readRunWithin } from './evidence-runs.js';
import { isComplete, isPartial, policyEvidence, type PolicyAsk, type WorkspaceRead } from './evidence-summary.js';
import type { EvidenceReadout, RunFindings } from './evidence-types.js';
import { BudgetSpentError, RequestBudget } from './request-budget.js';
import type { Run, RunApi } from './run-types.js';

export const DEFAULT_EVIDENCE_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_EVIDENCE_BUDGET = 500;
const DEFAULT_CONCURRENCY = 8;


export interface EvidenceOptions {
  organization: string;
  /** The workspaces in scope of any policy asked about; each policy's evidence lists them all, in this order. */
  workspaces: ReadonlyArray<{ id: string; name: string }>;
  /** Policy names, or asks with their kind and how the service reports them (a name alone: either). */
  policies: ReadonlyArray<string | PolicyAsk>;
  /** How far back runs are read. @default DEFAULT_EVIDENCE_WINDOW_MS (30 days) */
  windowMs?: number;
  /** Requests this read may send. @default DEFAULT_EVIDENCE_BUDGET (500) */
  budget?: number;
  /**
   * Time this read may take, in ms (its run lists wait for their 30 a minute): once spent, what is read is `partial`,
   * and a request still waiting gives up its place. @default no bound but the pass's
   */
  maxMs?: number;
  /** Findings of finished runs, read and filled; a cold run (CI) passes none. */
  cache?: RunCache;
  /** @default Date.now */
  now?: () => number;
  /** Reads in flight at once (the client's queue and pacer still set the rate). @default 8 */
  concurrency?: number;
  /** How the runs are listed (evidence-listing.ts). @default 'organization' */
  listing?: EvidenceListing;
}

export async function readEvidence(api: RunApi, options: EvidenceOptions): Promise<EvidenceReadout> {
  const deadline = new AbortController();
  // Every request of the read listens to it.
  setMaxListeners(0, deadline.signal);
  const timer = options.maxMs === undefined ? undefined : setTimeout(() => deadline.abort(new BudgetSpentError(options.maxMs ?? 0, null, 'time')), options.maxMs);
  try {
    return await readWithin(api, options, new RequestBudget(options.budget ?? DEFAULT_EVIDENCE_BUDGET, undefined, options.maxMs === undefined ? undefined : deadline.signal));
  } finally {
    clearTimeout(timer);
  }
}

async function readWithin(api: RunApi, options: EvidenceOptions, budget: RequestBudget): Promise<EvidenceReadout> {
  const to = (options.now ?? Date.now)();
  const ms = options.windowMs ?? DEFAULT_EVIDENCE_WINDOW_MS;
  const cache = options.cache ?? createRunCache();
  const limit = options.concurrency ?? DEFAULT_CONCURRENCY;
  const listing = { organization: options.organization, since: to - ms, budget, concurrency: limit, listing: options.listing ?? 'organization' } as const;
  let cachedRuns = 0;
  const findings = new Map<string, RunFindings | null>();
  const readRuns = (lists: ReadonlyArray<Run[] | null>) => mapLimit(newestFirst(lists), limit, async (run) => {
    const hit = cache.get(run.id);
    if (hit !== undefined) cachedRuns += 1;
    const found = hit ?? (await readRunWithin(api, run, budget));
    if (found !== null && hit === undefined) cache.put(found);
    findings.set(run.id, found);
  });
  // The runs the organization's list gave are read before the workspaces it gave none are listed one by one.
  const byOrganization = await listByOrganization(api, { ...listing, workspaces: options.workspaces });
  await readRuns([...byOrganization.values()]);
  const own = await listOwn(api, { ...listing, workspaces: options.workspaces.filter((ws) => !byOrganization.has(ws.id)) });
  await readRuns([...own.values()]);
  const lists = options.workspaces.map((ws) => byOrganization.get(ws.id) ?? own.get(ws.id) ?? null);
  const reads: WorkspaceRead[] = options.workspaces.map((workspace, i) => ({
    workspace, runs: lists[i]?.map((run) => ({ runId: run.id, findings: findings.get(run.id) ?? null })) ?? null,
  }));
  return {
    organization: options.organization,
    window: { from: new Date(to - ms).toISOString(), to: new Date(to).toISOString(), ms },
    policies: options.policies.map((policy) => policyEvidence(typeof policy === 'string' ? { name: policy } : policy, reads)),
    workspaces: reads.map((read) => ({
      workspaceId: read.workspace.id, workspaceName: read.workspace.name, runsInWindow: read.runs?.length ?? null,
      runsRead: read.runs?.filter((run) => run.findings !== null).length ?? 0, complete: isComplete(read),
    })),
    partial: isPartial(reads),
    requests: budget.spent,
    budget: budget.limit,
    cachedRuns,
  };
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
