/**
 * The hosted service's other access lists of a pool, `allowed-projects` and `excluded-workspaces`, managed as
 * `allowed-workspaces` is: absent in the YAML means not managed; present, even `[]`, means exactly that list.
 */
import type { DeclaredPool } from '../declared/types.js';
import type { LivePool } from '../model.js';
import { type Fields, sameSet, sortedIds } from './fields.js';

export const LISTS = [
  { field: 'allowed-projects', declared: 'allowedProjects', live: 'allowedProjectIds' },
  { field: 'excluded-workspaces', declared: 'excludedWorkspaces', live: 'excludedWorkspaceIds' },
] as const;

/** The managed lists of a pool being created, sorted; a list not managed is left out. */
export function accessLists(pool: DeclaredPool): Record<string, string[]> {
  const values: Record<string, string[]> = {};
  for (const list of LISTS) {
    const declared = pool[list.declared];
    if (declared !== undefined && declared !== null) values[list.field] = sortedIds(declared);
  }
  return values;
}

/** Adds a field for each managed list that differs from the live one, compared as sets. */
export function diffAccessLists(fields: Fields, pool: DeclaredPool, current: LivePool): void {
  for (const list of LISTS) {
    const declared = pool[list.declared];
    if (declared === undefined || declared === null) continue;
    const live = current[list.live];
    if (!sameSet(live, declared)) fields[list.field] = { before: sortedIds(live), after: sortedIds(declared) };
  }
}
