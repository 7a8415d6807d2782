/** Finding records by path parameter; a miss is a 404. */
import { notFound } from './http.js';
import type { AgentRecord, OrgRecord, PolicyRecord, PoolRecord, Store } from './store.js';

export function requireOrg(store: Store, name: string | undefined): OrgRecord {
  const org = name === undefined ? undefined : store.orgs.get(name);
  if (org === undefined) throw notFound();
  return org;
}

export function requirePolicy(store: Store, id: string | undefined): PolicyRecord {
  const policy = id === undefined ? undefined : store.policies.get(id);
  if (policy === undefined) throw notFound();
  return policy;
}

export function requirePool(store: Store, id: string | undefined): PoolRecord {
  const pool = id === undefined ? undefined : store.pools.get(id);
  if (pool === undefined) throw notFound();
  return pool;
}

export function requireAgent(store: Store, id: string | undefined): AgentRecord {
  const agent = id === undefined ? undefined : store.agents.get(id);
  if (agent === undefined) throw notFound();
  return agent;
}

/** True when the comma-separated `include` parameter names `resource`. */
export function includes(query: URLSearchParams, resource: string): boolean {
  return (query.get('include') ?? '').split(',').map((part) => part.trim()).includes(resource);
}
