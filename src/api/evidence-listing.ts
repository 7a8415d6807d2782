/**
 * Listing the runs of the window of every workspace in scope. The organization's run list (`filter[workspace_names]`,
 * names in batches that keep the URL short, task stages asked for) reads many workspaces a request; a workspace it
 * gave no run is read through its own list, since nothing says the organization's list covers every workspace a token
 * can see (docs/api-behaviour.md); api/evidence.ts reads the runs the first gave before it lists the others, as the
 * lists' 30 a minute may spend the read's time on them. `listing: 'workspace'` reads every workspace's own list.
 */
import { mapLimit } from '../map-limit.js';
import { BudgetSpentError, type RequestBudget } from './request-budget.js';
import type { Run, RunApi } from './run-types.js';

/** The most characters of workspace names one request carries. */
const NAMES_PER_REQUEST_CHARS = 1_500;

export type EvidenceListing = 'organization' | 'workspace';

export interface ListingInput {
  organization: string;
  workspaces: ReadonlyArray<{ id: string; name: string }>;
  since: number;
  budget: RequestBudget;
  concurrency: number;
  listing: EvidenceListing;
}

/** The value, or null once the budget is spent; every other failure rejects. */
export async function spent<T>(reading: Promise<T>): Promise<T | null> {
  try {
    return await reading;
  } catch (error) {
    if (error instanceof BudgetSpentError) return null;
    throw error;
  }
}

/**
 * The runs of the window the organization's list gives (by name batches), by workspace id, newest first; a workspace
 * it gave no run is absent (its own list is read after: `listOwn`), and one of a batch the budget left unread is null.
 */
export async function listByOrganization(api: RunApi, input: ListingInput): Promise<Map<string, Run[] | null>> {
  const found = new Map<string, Run[] | null>();
  if (input.listing !== 'organization') return found;
  await mapLimit(nameBatches(input.workspaces), input.concurrency, async (batch) => {
    const runs = await spent(api.listOrganizationRuns(input.organization, {
      workspaceNames: batch.map((ws) => ws.name), since: input.since, includeTaskStages: true, budget: input.budget,
    }));
    for (const ws of batch) {
      const own = runs?.filter((run) => run.workspaceId === ws.id) ?? null;
      if (own === null || own.length > 0) found.set(ws.id, own);
    }
  });
  return found;
}

/** Each of `workspaces`' runs of the window through its own list, newest first; null for one the budget left unlisted. */
export async function listOwn(api: RunApi, input: ListingInput): Promise<Map<string, Run[] | null>> {
  const found = new Map<string, Run[] | null>();
  await mapLimit(input.workspaces, input.concurrency, async (ws) => {
    const runs = await spent(api.listWorkspaceRuns(ws.id, { since: input.since, includeTaskStages: true, budget: input.budget }));
    found.set(ws.id, runs?.map((run) => ({ ...run, workspaceId: run.workspaceId ?? ws.id })) ?? null);
  });
  return found;
}

/** The workspaces in batches whose names, comma-separated, stay within NAMES_PER_REQUEST_CHARS. */
export function nameBatches<T extends { name: string }>(workspaces: readonly T[]): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let chars = 0;
  for (const ws of workspaces) {
    if (current.length > 0 && chars + ws.name.length + 1 > NAMES_PER_REQUEST_CHARS) {
      batches.push(current);
      current = [];
      chars = 0;
    }
    current.push(ws);
    chars += ws.name.length + 1;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}
