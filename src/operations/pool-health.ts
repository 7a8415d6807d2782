import type { PolicyApi } from '../api/types.js';
import type { AgentStatus } from '../model.js';
import { count } from '../plural.js';

const STATUSES: readonly AgentStatus[] = ['idle', 'busy', 'exited', 'errored', 'unknown'];

/** One agent pool of a source's organization: its agents by status, and whether anything can run on it. */
export interface PoolHealth {
  name: string;
  /** Workspaces attached to the pool, that use it (their runs need its agents); those only allowed to are not counted. */
  workspaces: number;
  agents: Record<AgentStatus, number>;
  /** The newest ping of any of its agents, or null when none ever pinged. */
  newestPingAt: string | null;
  /** Set when workspaces are attached and no agent is idle or busy: their runs wait for ever. */
  warning: string | null;
}

/** What pool health reads of a pool: its name, the workspaces that use it, its agents. */
export interface PoolWithAgents {
  name: string;
  workspaceIds: readonly string[];
  agents: ReadonlyArray<{ status: string; lastPingAt: string | null }>;
}

/** Reads the organization's pools (with the workspaces that use them) and their agents (one request per pool). */
export async function readPoolHealth(api: PolicyApi, organization: string): Promise<PoolHealth[]> {
  const { pools } = await api.listAgentPools(organization, { includeWorkspaces: true });
  return poolHealth(await Promise.all(pools.map(async (pool) => ({ ...pool, agents: await api.listAgents(pool.id) }))));
}

/** The health of pools as read (a pass's own read of the pools and their agents, or `readPoolHealth`'s). */
export function poolHealth(pools: readonly PoolWithAgents[]): PoolHealth[] {
  return pools.map((pool): PoolHealth => {
    const { agents } = pool;
    const counts = Object.fromEntries(STATUSES.map((s) => [s, agents.filter((a) => a.status === s).length])) as Record<AgentStatus, number>;
    const pings = agents.map((a) => a.lastPingAt).filter((p): p is string => p !== null && !Number.isNaN(Date.parse(p)));
    const newest = pings.length === 0 ? null : new Date(Math.max(...pings.map((p) => Date.parse(p)))).toISOString();
    const workspaces = new Set(pool.workspaceIds).size;
    const able = counts.idle + counts.busy;
    const warning = workspaces > 0 && able === 0
      ? `agent pool "${pool.name}" has ${count(workspaces, 'workspace')} attached, and no idle or busy agent (${count(agents.length, 'agent')} in all): their runs cannot start`
      : null;
    return { name: pool.name, workspaces, agents: counts, newestPingAt: newest, warning };
  });
}
