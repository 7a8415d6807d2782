/** The emulator's in-memory state, built from the seed. */
import type { AgentStatus, EnforcementLevel, PolicyKind } from '../model.js';
import { newId } from './ids.js';
import type { Seed, SeedAgent } from './types.js';

export interface OrgRecord {
  name: string;
  maxAgentPools: number;
  /** id → name */
  workspaces: Map<string, string>;
  policySets: Set<string>;
}

export interface PolicyRecord {
  id: string;
  org: string;
  name: string;
  description: string | null;
  kind: PolicyKind;
  query: string | null;
  level: EnforcementLevel;
  policySetIds: string[];
  updatedAt: string | null;
  code: Buffer | null;
}

export interface PoolRecord {
  id: string;
  org: string;
  name: string;
  createdAt: string;
  organizationScoped: boolean;
  allowedWorkspaceIds: string[];
  /** Workspaces attached to the pool; the emulator has no endpoint that attaches one. */
  workspaceIds: string[];
}

export interface AgentRecord {
  id: string;
  poolId: string;
  name: string | null;
  status: AgentStatus;
  ipAddress: string;
  lastPingAt: string;
  createdAt: string;
}

export interface Store {
  orgs: Map<string, OrgRecord>;
  policies: Map<string, PolicyRecord>;
  pools: Map<string, PoolRecord>;
  agents: Map<string, AgentRecord>;
}

export function createStore(seed: Seed, now: () => number): Store {
  const store: Store = { orgs: new Map(), policies: new Map(), pools: new Map(), agents: new Map() };
  for (const org of seed.organizations) {
    store.orgs.set(org.name, {
      name: org.name,
      maxAgentPools: org.maxAgentPools ?? 1,
      workspaces: new Map((org.workspaces ?? []).map((ws) => [ws.id, ws.name])),
      policySets: new Set(org.policySets ?? []),
    });
    for (const pool of org.agentPools ?? []) {
      const record: PoolRecord = {
        id: newId('apool'),
        org: org.name,
        name: pool.name,
        createdAt: new Date(now()).toISOString(),
        organizationScoped: pool.organizationScoped ?? true,
        allowedWorkspaceIds: [...(pool.allowedWorkspaces ?? [])],
        workspaceIds: [],
      };
      store.pools.set(record.id, record);
      for (const agent of pool.agents ?? []) addAgent(store, record.id, agent, now);
    }
  }
  return store;
}

export function addAgent(store: Store, poolId: string, agent: SeedAgent, now: () => number): AgentRecord {
  const record: AgentRecord = {
    id: newId('agent'),
    poolId,
    name: agent.name ?? null,
    status: agent.status,
    ipAddress: agent.ipAddress ?? '127.0.0.1',
    lastPingAt: agent.lastPingAt ?? new Date(now()).toISOString(),
    // Registered no later than its last ping.
    createdAt: new Date(Math.min(now(), Date.parse(agent.lastPingAt ?? '') || Infinity)).toISOString(),
  };
  store.agents.set(record.id, record);
  return record;
}

export function poolsOf(store: Store, org: string): PoolRecord[] {
  return [...store.pools.values()].filter((pool) => pool.org === org);
}

export function agentsOf(store: Store, poolId: string): AgentRecord[] {
  return [...store.agents.values()].filter((agent) => agent.poolId === poolId);
}
