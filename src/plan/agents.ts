import type { DeclaredPool } from '../declared/types.js';
import type { LivePool } from '../model.js';
import type { AgentChange } from './types.js';

/**
 * Agents of a declared pool with `agent-cleanup` whose status is listed and whose last ping is
 * older than `now - afterMs`. Agents with an unreadable last-ping-at are left alone.
 */
export function planAgentCleanup(pool: DeclaredPool, live: LivePool, now: number): AgentChange[] {
  const cleanup = pool.agentCleanup;
  if (cleanup === null) return [];
  const changes: AgentChange[] = [];
  for (const agent of live.agents) {
    if (!cleanup.statuses.includes(agent.status)) continue;
    const lastPing = Date.parse(agent.lastPingAt);
    if (Number.isNaN(lastPing) || now - lastPing <= cleanup.afterMs) continue;
    changes.push({
      resource: 'agent',
      name: agent.name ?? agent.id,
      id: agent.id,
      action: 'delete',
      reason: `agent clean-up in pool "${pool.name}": ${agent.status}, last ping ${agent.lastPingAt} is older than ${cleanup.after}`,
      fields: {
        status: { before: agent.status, after: null },
        'last-ping-at': { before: agent.lastPingAt, after: null },
      },
      poolName: pool.name,
      live: agent,
    });
  }
  return changes;
}
