import type { DeclaredPool } from '../declared/types.js';
import type { LivePool } from '../model.js';
import { lastSeen, type Seen } from './agent-time.js';
import { created, diffField, type Fields, sameSet, sortedIds, strictEqual } from './fields.js';
import { accessLists, diffAccessLists } from './pool-access.js';
import { differsIn } from './reasons.js';
import type { PoolPair } from './pairs.js';
import { liveAgentRef, livePoolRef, poolSpec } from './refs.js';
import type { AgentChange, PlanOptions, PoolChange } from './types.js';

export interface PoolPlan {
  changes: Array<PoolChange | AgentChange>;
  /** Agents the clean-up leaves alone because their time cannot be believed. */
  warnings: string[];
}

/** Creates, updates, renames and agent clean-ups for the declared pools, from their pairs (see pairs.ts for renames). */
export function planPools(pairs: readonly PoolPair[], options: PlanOptions): PoolPlan {
  const changes: Array<PoolChange | AgentChange> = [];
  const warnings: string[] = [];
  for (const { declared: pool, live: current } of pairs) {
    if (pool === null) continue;
    if (current === null) {
      changes.push(createChange(pool));
      continue;
    }
    const update = updateChange(pool, current);
    if (update !== null) changes.push(update);
    for (const cleanup of planAgentCleanup(pool, current, options.now, warnings)) changes.push(cleanup);
  }
  return { changes, warnings };
}

function createChange(pool: DeclaredPool): PoolChange {
  const workspaces = pool.allowedWorkspaces === null ? null : sortedIds(pool.allowedWorkspaces);
  return {
    resource: 'agent-pool', name: pool.name, id: null, action: 'create', reason: 'not in the live state',
    fields: created({ 'organization-scoped': pool.organizationScoped, 'allowed-workspaces': workspaces, ...accessLists(pool) }),
    declared: poolSpec(pool), live: null,
  };
}

function updateChange(pool: DeclaredPool, current: LivePool): PoolChange | null {
  const fields: Fields = {};
  diffField(fields, 'name', current.name, pool.name, strictEqual);
  diffField(fields, 'organization-scoped', current.organizationScoped, pool.organizationScoped, strictEqual);
  if (pool.allowedWorkspaces !== null && !sameSet(current.allowedWorkspaceIds, pool.allowedWorkspaces)) {
    fields['allowed-workspaces'] = { before: sortedIds(current.allowedWorkspaceIds), after: sortedIds(pool.allowedWorkspaces) };
  }
  diffAccessLists(fields, pool, current);
  const names = Object.keys(fields);
  if (names.length === 0) return null;
  const reason = ['name' in fields ? 'renamed' : '', differsIn(names.filter((name) => name !== 'name'))]
    .filter(Boolean)
    .join('; ');
  return {
    resource: 'agent-pool', name: pool.name, id: current.id, action: 'update', reason, fields,
    declared: poolSpec(pool), live: livePoolRef(current),
  };
}

/**
 * Agents of a declared pool with `agent-cleanup` whose status is listed and whose last ping is
 * older than `now - afterMs`. An agent that never pinged (null last-ping-at) counts from its
 * registration (created-at). Agents whose time cannot be read, or lies in the future, are left alone with a warning.
 */
function planAgentCleanup(pool: DeclaredPool, live: LivePool, now: number, warnings: string[]): AgentChange[] {
  const cleanup = pool.agentCleanup;
  if (cleanup === null) return [];
  const changes: AgentChange[] = [];
  for (const agent of live.agents) {
    if (!(cleanup.statuses as readonly string[]).includes(agent.status)) continue;
    const seen = lastSeen(agent, pool.name, now);
    if (seen !== null && 'warning' in seen) warnings.push(seen.warning);
    if (seen === null || 'warning' in seen || now - seen.at <= cleanup.afterMs) continue;
    changes.push({
      resource: 'agent',
      name: agent.name ?? agent.id,
      id: agent.id,
      action: 'delete',
      reason: `agent clean-up in pool "${pool.name}": ${agent.status}, ${seenText(seen)} older than ${cleanup.after}`,
      fields: {
        status: { before: agent.status, after: null },
        'last-ping-at': { before: agent.lastPingAt, after: null },
      },
      poolName: pool.name,
      live: liveAgentRef(agent),
    });
  }
  return changes;
}

function seenText(seen: Seen): string {
  return seen.pinged ? `last ping ${seen.time} is` : `never pinged, registered ${seen.time},`;
}
