/** JSON:API serialisers of the emulator's records. */
import type { NativeKindName } from '../model.js';
import { enforceExt } from './policy-input.js';
import { kindWord } from './records.js';
import type { AgentRecord, PolicyRecord, PoolRecord, Store } from './store.js';
import { agentsOf } from './store.js';

const BASE = '/api/v2';
const COUNTED_STATUSES = new Set(['idle', 'busy', 'unknown']);

/** create: no download link; show, upload: all links and sets; list, update: sets omitted when empty. */
export type PolicyView = 'create' | 'show' | 'list' | 'update';

/**
 * `enforce` is empty until code is uploaded, as the service answers. `legacy`: a server older than
 * mid-2023, whose only level is `enforce`, always filled.
 */
export function policyResource(
  policy: PolicyRecord, view: PolicyView, legacy = false, nativeKind: NativeKindName = 'native', omitPolicySets = false,
): Record<string, unknown> {
  const ext = enforceExt(policy.kind, { nativeKind });
  const enforce = legacy || policy.code !== null ? [{ path: `${policy.name}.${ext}`, mode: policy.level }] : [];
  const attributes: Record<string, unknown> = {
    name: policy.name,
    description: policy.description,
    kind: kindWord(policy.kind, nativeKind),
    ...(policy.kind === 'opa' ? { query: policy.query } : {}),
    ...(legacy ? {} : { 'enforcement-level': policy.level }),
    enforce,
    'policy-set-count': policy.policySetIds.length,
    'updated-at': policy.updatedAt,
  };
  const relationships: Record<string, unknown> = {
    organization: { data: { id: policy.org, type: 'organizations' } },
  };
  const omitSets = omitPolicySets || ((view === 'list' || view === 'update') && policy.policySetIds.length === 0);
  if (!omitSets) relationships['policy-sets'] = { data: policy.policySetIds.map(policySetRef) };
  const self = `${BASE}/policies/${policy.id}`;
  const links: Record<string, string> = { self, upload: `${self}/upload` };
  if (view !== 'create') links.download = `${self}/download`;
  return { id: policy.id, type: 'policies', attributes, relationships, links };
}

export function policySetRef(id: string): { id: string; type: string } {
  return { id, type: 'policy-sets' };
}

/** Policy-set records of `included`, each once, in order of first use. */
export function includedPolicySets(policies: PolicyRecord[]): Record<string, unknown>[] {
  const ids = new Set(policies.flatMap((policy) => policy.policySetIds));
  return [...ids].map(policySetRef);
}

export function poolResource(store: Store, pool: PoolRecord): Record<string, unknown> {
  const self = `${BASE}/agent-pools/${pool.id}`;
  const agentCount = agentsOf(store, pool.id).filter((agent) => COUNTED_STATUSES.has(agent.status)).length;
  return {
    id: pool.id,
    type: 'agent-pools',
    attributes: {
      name: pool.name,
      'created-at': pool.createdAt,
      'organization-scoped': pool.organizationScoped,
      'agent-count': agentCount,
    },
    relationships: {
      organization: { data: { id: pool.org, type: 'organizations' } },
      agents: { links: { related: `${self}/agents` } },
      'authentication-tokens': { links: { related: `${self}/authentication-tokens` } },
      workspaces: { data: pool.workspaceIds.map(workspaceRef) },
      'allowed-workspaces': { data: pool.allowedWorkspaceIds.map(workspaceRef) },
      'allowed-projects': { data: pool.allowedProjectIds.map((id) => ({ id, type: 'projects' })) },
      'excluded-workspaces': { data: pool.excludedWorkspaceIds.map(workspaceRef) },
    },
    links: { self },
  };
}

export function workspaceRef(id: string): { id: string; type: string } {
  return { id, type: 'workspaces' };
}

/** Workspace records of `included` for pools: attached and allowed workspaces, each once. */
export function includedWorkspaces(store: Store, pools: PoolRecord[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const pool of pools) {
    const names = store.orgs.get(pool.org)?.workspaces;
    for (const id of [...pool.workspaceIds, ...pool.allowedWorkspaceIds]) {
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ ...workspaceRef(id), attributes: { name: names?.get(id) ?? null }, links: { self: `${BASE}/workspaces/${id}` } });
    }
  }
  return out;
}

export function agentResource(agent: AgentRecord): Record<string, unknown> {
  return {
    id: agent.id,
    type: 'agents',
    attributes: {
      name: agent.name,
      status: agent.status,
      'ip-address': agent.ipAddress,
      'last-ping-at': agent.lastPingAt,
      'created-at': agent.createdAt,
    },
    links: { self: `${BASE}/agents/${agent.id}` },
  };
}
