import type { Change, ChangeResult } from '../plan/types.js';

/**
 * Why a delete must not run after the creates went as they did, or null to run it. An agent pool is deleted only
 * once the pools planned in its place exist: with the organization's one-pool limit (or any failure), a refused
 * create followed by the old pool's delete would leave the organization without a pool until the next pass.
 */
export function blockedDelete(change: Change, results: ReadonlyMap<Change, ChangeResult>): string | null {
  if (change.resource !== 'agent-pool') return null;
  for (const [planned, result] of results) {
    if (planned.resource !== 'agent-pool' || planned.action === 'delete' || planned.action === 'update') continue;
    if (result.outcome === 'applied') continue;
    return `not applied: the ${planned.action} of agent pool "${planned.name}" did not succeed, and deleting "${change.name}" would leave the organization without the pool it replaces; the next pass tries again`;
  }
  return null;
}
