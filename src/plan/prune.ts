import type { DeclaredState } from '../declared/types.js';
import type { LivePolicy, LivePool, LiveState } from '../model.js';
import type { Fields } from './fields.js';
import { markerSource, stripMarker } from './marker.js';
import { ownedElsewhere } from './policies.js';
import type { PlanOptions, PolicyChange, PoolChange } from './types.js';

export interface PrunePlan {
  deletes: Array<PolicyChange | PoolChange>;
  /** Live resources this source owns but does not declare, kept because prune is off. */
  kept: string[];
  /** Policies prune would take although another source's marker claims them (`ownership: organization`). */
  conflicts: string[];
}

/**
 * Owned live resources that are not declared. `ownership: marker` owns the policies carrying this
 * source's marker (never pools: they have no description); `ownership: organization` owns every
 * policy and pool. They are deleted with prune on, and only listed otherwise.
 */
export function planPrune(declared: DeclaredState, live: LiveState, claimedPools: Set<string>, options: PlanOptions): PrunePlan {
  const declaredPolicies = new Set(declared.policies.map((policy) => policy.name));
  const undeclared = live.policies.filter((policy) => !declaredPolicies.has(policy.name));
  const owner = (policy: LivePolicy) => markerSource(policy.description);
  const ownedElsewhereToo = (policy: LivePolicy) => owner(policy) !== null && owner(policy) !== options.source;
  // Another source's policy is never pruned, under organization ownership either, unless adopt is on.
  const policies = undeclared.filter((policy) =>
    options.ownership === 'organization' ? options.adopt === true || !ownedElsewhereToo(policy) : owner(policy) === options.source,
  );
  const claimed = options.ownership === 'organization' && options.adopt !== true ? undeclared.filter(ownedElsewhereToo) : [];
  const pools = options.ownership === 'organization' ? live.pools.filter((pool) => !claimedPools.has(pool.id)) : [];
  if (!options.prune) {
    return {
      deletes: [],
      kept: [...policies.map((p) => `policy "${p.name}"`).sort(), ...pools.map((p) => `agent-pool "${p.name}"`).sort()],
      conflicts: [],
    };
  }
  const conflicts = claimed.map((policy) => ownedElsewhere(policy.name, owner(policy)!, 'deletes')).sort();
  // The service refuses to delete a pool that workspaces use: never planned, an error names them instead.
  const inUse = pools.filter((pool) => pool.workspaceIds.length > 0);
  conflicts.push(...inUse.map(poolInUse));
  const deletable = pools.filter((pool) => pool.workspaceIds.length === 0);
  return { deletes: [...policies.map(deletePolicy), ...deletable.map(deletePool)], kept: [], conflicts };
}

function deletePolicy(policy: LivePolicy): PolicyChange {
  return {
    resource: 'policy', name: policy.name, id: policy.id, action: 'delete', reason: 'not declared, prune is on',
    fields: removed({
      kind: policy.kind,
      description: stripMarker(policy.description),
      'enforcement-level': policy.enforcementLevel,
      query: policy.query,
    }),
    declared: null, live: policy, uploadCode: false, adoptMarker: false,
  };
}

function deletePool(pool: LivePool): PoolChange {
  return {
    resource: 'agent-pool', name: pool.name, id: pool.id, action: 'delete', reason: 'not declared, prune is on',
    fields: removed({ 'organization-scoped': pool.organizationScoped, 'agent-count': pool.agentCount }),
    declared: null, live: pool,
  };
}

function poolInUse(pool: LivePool): string {
  const ids = [...pool.workspaceIds].sort().join(', ');
  return `agent-pool "${pool.name}" is not declared and prune would delete it, but workspaces use it (${ids}); the API refuses to delete a pool in use. Move those workspaces to another pool, or declare the pool.`;
}

/** Every non-null entry as a deletion (after null). */
function removed(values: Record<string, unknown>): Fields {
  const fields: Fields = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== null) fields[key] = { before: value, after: null };
  }
  return fields;
}
