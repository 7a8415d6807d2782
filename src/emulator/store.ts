/**
 * The emulator's in-memory state, built from the seed. Besides the records by id it keeps an index per
 * organization (policies by name, pools) and per pool (agents), so that a request costs the same
 * whatever else the store holds: change records only through the functions here, which keep both.
 */
import { newId } from './ids.js';
import { createRunStore, type RunStore } from './run-records.js';
import type { AgentRecord, OrgRecord, PolicyRecord, PolicySetRecord, PoolRecord, TokenRecord, VersionRecord } from './records.js';
import type { Seed, SeedAgent, SeedPolicySet } from './types.js';
import { parseTag } from '../model.js';

export type { AgentRecord, OrgRecord, PolicyRecord, PolicySetRecord, PoolRecord, TokenRecord, VersionRecord } from './records.js';

interface OrgIndex {
  /** By name, in creation order. */
  policies: Map<string, PolicyRecord>;
  /** `policies` as a list; rebuilt after a change, so that paging a long list copies it once. */
  policyList: PolicyRecord[] | null;
  pools: Map<string, PoolRecord>;
}

export interface Store {
  orgs: Map<string, OrgRecord>;
  policies: Map<string, PolicyRecord>;
  pools: Map<string, PoolRecord>;
  agents: Map<string, AgentRecord>;
  byOrg: Map<string, OrgIndex>;
  agentsByPool: Map<string, Map<string, AgentRecord>>;
  /** Agent pools' authentication tokens by id. */
  tokens: Map<string, TokenRecord>;
  /** Policy-set versions by id. */
  versions: Map<string, VersionRecord>;
  /** Ids of the uploaded versions whose ingestion has not ended yet (see ingestion.ts). */
  ingesting: Set<string>;
  /** Runs, their task stages, policy evaluations and policy-set outcomes. */
  runs: RunStore;
}

export function createStore(seed: Seed, now: () => number): Store {
  const store: Store = { orgs: new Map(), policies: new Map(), pools: new Map(), agents: new Map(), byOrg: new Map(), agentsByPool: new Map(), tokens: new Map(), versions: new Map(), ingesting: new Set(), runs: createRunStore() };
  for (const org of seed.organizations) {
    store.orgs.set(org.name, {
      name: org.name,
      maxAgentPools: org.maxAgentPools ?? 1,
      workspaces: new Map((org.workspaces ?? []).map((ws) => [ws.id, ws.name])),
      projects: new Map((org.projects ?? []).map((project) => [project.id, project.name])),
      workspaceProjects: new Map((org.workspaces ?? []).flatMap((ws) => (ws.project === undefined ? [] : [[ws.id, ws.project] as const]))),
      workspaceTags: new Map((org.workspaces ?? []).map((ws) => [ws.id, (ws.tags ?? []).map(parseTag)])),
      policySets: new Map((org.policySets ?? []).map((set) => seededSet(org.name, set, now))),
      entitlements: {
        policySetLimit: org.entitlements?.policySetLimit ?? null,
        policyLimit: org.entitlements?.policyLimit ?? null,
        versionedPolicySetLimit: org.entitlements?.versionedPolicySetLimit ?? null,
      },
    });
    store.byOrg.set(org.name, { policies: new Map(), policyList: null, pools: new Map() });
    for (const pool of org.agentPools ?? []) {
      const record = addPool(store, {
        id: newId('apool'),
        org: org.name,
        name: pool.name,
        createdAt: new Date(now()).toISOString(),
        organizationScoped: pool.organizationScoped ?? true,
        allowedWorkspaceIds: [...(pool.allowedWorkspaces ?? [])],
        allowedProjectIds: [],
        excludedWorkspaceIds: [],
        workspaceIds: [...(pool.workspaces ?? [])],
      });
      for (const agent of pool.agents ?? []) addAgent(store, record.id, agent, now);
    }
  }
  return store;
}

function indexOf(store: Store, org: string): OrgIndex {
  const index = store.byOrg.get(org);
  if (index === undefined) throw new Error(`organization ${org} is not in the store`);
  return index;
}

export function addPolicy(store: Store, policy: PolicyRecord): void {
  store.policies.set(policy.id, policy);
  const index = indexOf(store, policy.org);
  index.policies.set(policy.name, policy);
  index.policyList = null;
}

export function removePolicy(store: Store, policy: PolicyRecord): void {
  store.policies.delete(policy.id);
  const index = indexOf(store, policy.org);
  index.policies.delete(policy.name);
  index.policyList = null;
}

/** The organization's policies in creation order; do not change the list. */
export function policiesOf(store: Store, org: string): readonly PolicyRecord[] {
  const index = indexOf(store, org);
  index.policyList ??= [...index.policies.values()];
  return index.policyList;
}

export function policyNamed(store: Store, org: string, name: string): PolicyRecord | undefined {
  return indexOf(store, org).policies.get(name);
}

export function addPool(store: Store, pool: PoolRecord): PoolRecord {
  store.pools.set(pool.id, pool);
  indexOf(store, pool.org).pools.set(pool.id, pool);
  store.agentsByPool.set(pool.id, new Map());
  return pool;
}

/** Removes the pool, its agents and its tokens. */
export function removePool(store: Store, pool: PoolRecord): void {
  for (const token of tokensOf(store, pool.id)) store.tokens.delete(token.id);
  for (const agent of agentsOf(store, pool.id)) store.agents.delete(agent.id);
  store.agentsByPool.delete(pool.id);
  indexOf(store, pool.org).pools.delete(pool.id);
  store.pools.delete(pool.id);
}

/** A pool's tokens, oldest first. */
export function tokensOf(store: Store, poolId: string): TokenRecord[] {
  return [...store.tokens.values()].filter((token) => token.poolId === poolId);
}

export function poolsOf(store: Store, org: string): PoolRecord[] {
  return [...indexOf(store, org).pools.values()];
}

export function addAgent(store: Store, poolId: string, agent: SeedAgent, now: () => number): AgentRecord {
  const record: AgentRecord = {
    id: newId('agent'),
    poolId,
    name: agent.name ?? null,
    status: agent.status,
    ipAddress: agent.ipAddress === undefined ? '127.0.0.1' : agent.ipAddress,
    lastPingAt: agent.lastPingAt === undefined ? new Date(now()).toISOString() : agent.lastPingAt,
    // Unless seeded, registered no later than its last ping.
    createdAt: agent.createdAt ?? new Date(Math.min(now(), Date.parse(agent.lastPingAt ?? '') || Infinity)).toISOString(),
  };
  store.agents.set(record.id, record);
  store.agentsByPool.get(poolId)?.set(record.id, record);
  return record;
}

export function removeAgent(store: Store, agent: AgentRecord): void {
  store.agents.delete(agent.id);
  store.agentsByPool.get(agent.poolId)?.delete(agent.id);
}

export function agentsOf(store: Store, poolId: string): AgentRecord[] {
  return [...(store.agentsByPool.get(poolId)?.values() ?? [])];
}

function seededSet(org: string, seed: string | SeedPolicySet, now: () => number): [string, PolicySetRecord] {
  const set = typeof seed === 'string' ? { id: seed } : seed;
  const at = new Date(now()).toISOString();
  return [set.id, {
    id: set.id,
    org,
    name: set.name ?? set.id,
    description: set.description ?? null,
    kind: set.kind ?? 'native',
    global: set.global ?? false,
    // An opa set answers `overridable` false when created without it; a native one only while it is agent-enabled.
    overridable: set.kind === 'opa' ? false : set.agentEnabled === true ? false : null,
    agentEnabled: set.agentEnabled ?? false,
    policyToolVersion: null,
    policiesPath: null,
    policyUpdatePatterns: [],
    vcsRepo: null,
    workspaceIds: [...(set.workspaces ?? [])],
    projectIds: [...(set.projects ?? [])],
    workspaceExclusionIds: [],
    projectExclusionIds: [],
    tagSelectors: [],
    scopingType: 'explicit',
    tagMatch: 'any',
    versionIds: [],
    currentVersionId: null,
    createdAt: at,
    updatedAt: at,
    parameters: new Map(),
  }];
}

/**
 * The set of that id, with its organization. Seeds may give two organizations a set of the same id: `org` picks the
 * one of that organization; without it, the first.
 */
export function findPolicySet(store: Store, id: string, org?: string): PolicySetRecord | undefined {
  for (const candidate of store.orgs.values()) {
    if (org !== undefined && candidate.name !== org) continue;
    const set = candidate.policySets.get(id);
    if (set !== undefined) return set;
  }
  return undefined;
}
