import type { LivePolicy, LivePool } from '../model.js';
import { removed } from './fields.js';
import { stripMarker } from './marker.js';
import { claimedElsewhere, ownsUndeclared, type Pair, type Pairing } from './pairs.js';
import { ownedElsewhere } from './policies.js';
import { livePolicyRef, livePoolRef } from './refs.js';
import type { PlanOptions, PolicyChange, PoolChange } from './types.js';

export interface PrunePlan {
  deletes: Array<PolicyChange | PoolChange>;
  /** Live resources this source owns but does not declare, kept because prune is off. */
  kept: string[];
  /** Policies prune would take although another source's marker claims them (`ownership: organization`). */
  conflicts: string[];
}

/**
 * Owned live resources that are not declared (see `ownsUndeclared`): deleted with prune on, only listed otherwise.
 * Under `ownership: organization`, prune meeting a policy another source's marker claims is a conflict, unless adopt is on.
 */
export function planPrune(pairing: Pairing, options: PlanOptions): PrunePlan {
  const undeclared = <D, L>(pairs: ReadonlyArray<Pair<D, L>>) => pairs.filter((pair): pair is Pair<D, L> & { live: L } => pair.declared === null && pair.live !== null);
  const owned = <D, L>(pairs: ReadonlyArray<Pair<D, L>>) => undeclared(pairs).filter((pair) => ownsUndeclared(pair.owner, options)).map((pair) => pair.live);
  const policies = owned(pairing.policies);
  const pools = owned(pairing.pools);
  if (!options.prune) {
    return {
      deletes: [],
      kept: [...policies.map((p) => `policy "${p.name}"`).sort(), ...owned(pairing.sets).map((s) => `policy-set "${s.name}"`).sort(), ...pools.map((p) => `agent-pool "${p.name}"`).sort()],
      conflicts: [],
    };
  }
  const claimed = options.ownership === 'organization' ? undeclared(pairing.policies).filter((pair) => claimedElsewhere(pair.owner, options)) : [];
  const conflicts = claimed.map((pair) => ownedElsewhere(pair.live.name, pair.markedBy!, 'deletes')).sort();
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
    declared: null, live: livePolicyRef(policy), uploadCode: false, adoptMarker: false,
  };
}

function deletePool(pool: LivePool): PoolChange {
  return {
    resource: 'agent-pool', name: pool.name, id: pool.id, action: 'delete', reason: 'not declared, prune is on',
    fields: removed({ 'organization-scoped': pool.organizationScoped, 'agent-count': pool.agentCount }),
    declared: null, live: livePoolRef(pool),
  };
}

function poolInUse(pool: LivePool): string {
  const ids = [...pool.workspaceIds].sort().join(', ');
  return `agent-pool "${pool.name}" is not declared and prune would delete it, but workspaces use it (${ids}); the API refuses to delete a pool in use. Move those workspaces to another pool, or declare the pool.`;
}
