import type { DeclaredState } from '../declared/types.js';
import type { LiveState } from '../model.js';
import { planForeign } from './foreign.js';
import { checkGuards } from './guards.js';
import { resolveNames, type Resolved } from './names.js';
import { pairResources, type Pairing } from './pairs.js';
import { planPolicies } from './policies.js';
import { planPolicySets } from './policy-sets.js';
import { planPools } from './pools.js';
import { planTokens } from './tokens.js';
import { planPrune } from './prune.js';
import { withScopeNames } from './scope-names.js';
import type { Change, ChangeAction, Plan, PlanOptions, ResourceType } from './types.js';

/**
 * The pure diff of one source: what the apply must do so that the API matches the declared state.
 * No I/O, no clock (`options.now`), no logger. A plan with errors must not be applied.
 */
export function planChanges(declared: DeclaredState, live: LiveState, options: PlanOptions): Plan {
  const names = resolveNames(declared, live);
  return planPairs(pairResources(names.declared, live, options), names.declared, live, options, names);
}

/**
 * The plan of a pairing already made of `declared` and `live` (a pass pairs once, and checks a saved plan against the
 * same pairs); `names`: what resolving names into ids (names.ts) found, for the declared state it resolved.
 */
export function planPairs(pairing: Pairing, declared: DeclaredState, live: LiveState, options: PlanOptions, names?: Pick<Resolved, 'errors' | 'warnings'> & Partial<Pick<Resolved, 'wildcards'>>): Plan {
  const policies = planPolicies(pairing.policies, options);
  const pools = planPools(pairing.pools, options);
  const tokens = planTokens(pairing.pools, options);
  const prune = planPrune(pairing, options);
  const sets = planPolicySets(pairing.sets, options, setMembers(declared));
  const changes: Change[] = withScopeNames(sortChanges([...sets.changes, ...policies.changes, ...pools.changes, ...tokens.changes, ...prune.deletes]), live, names?.wildcards ?? new Map());
  const foreign = planForeign(declared.policies, live.foreignPolicies ?? []);
  const warnings = [...(declared.warnings ?? []), ...policies.warnings, ...pairing.warnings, ...pools.warnings, ...tokens.warnings, ...foreign.warnings, ...sets.warnings, ...(names?.warnings ?? [])];
  if (prune.kept.length > 0) {
    warnings.push(`not declared and kept because prune is off: ${prune.kept.join(', ')}`);
  }
  return {
    changes,
    warnings,
    errors: [...(names?.errors ?? []), ...policies.conflicts, ...sets.conflicts, ...prune.conflicts, ...tokens.errors, ...foreign.errors, ...checkGuards(declared, changes, options)],
    keptUndeclared: keptUndeclared(pairing, changes),
    ...(tokens.statuses.length === 0 ? {} : { tokens: tokens.statuses }),
  };
}

/** The policies each set id is listed by, in their `policy-sets` (names already resolved into ids). */
function setMembers(declared: DeclaredState): Map<string, string[]> {
  const members = new Map<string, string[]>();
  // Appended in place: a copy per member would cost the square of a large set's members (20,000: seconds of the loop).
  for (const policy of declared.policies) {
    for (const id of policy.policySets ?? []) {
      const names = members.get(id);
      if (names === undefined) members.set(id, [policy.name]);
      else names.push(policy.name);
    }
  }
  return members;
}

/** Live policies and pools that no declaration matches and that this plan does not delete. */
function keptUndeclared(pairing: Pairing, changes: readonly Change[]): number {
  const deleted = new Set(changes.filter((c) => c.action === 'delete').map((c) => c.id));
  const kept = (pair: { declared: unknown; live: { id: string } | null }) => pair.declared === null && pair.live !== null && !deleted.has(pair.live.id);
  return pairing.policies.filter(kept).length + pairing.sets.filter(kept).length + pairing.pools.filter(kept).length;
}

const ACTION_ORDER: Record<ChangeAction, number> = { create: 0, replace: 1, update: 2, delete: 3 };
const RESOURCE_ORDER: Record<ResourceType, number> = { 'policy-set': 0, policy: 1, 'agent-pool': 2, agent: 3, 'agent-token': 4 };

function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Creates, replaces, updates, deletes; within each: policy-set, policy, agent-pool, agent; then by name, then id. */
function compareChanges(a: Change, b: Change): number {
  return (
    ACTION_ORDER[a.action] - ACTION_ORDER[b.action] ||
    RESOURCE_ORDER[a.resource] - RESOURCE_ORDER[b.resource] ||
    compareText(a.name, b.name) ||
    compareText(a.id ?? '', b.id ?? '')
  );
}

function sortChanges<T extends Change>(changes: readonly T[]): T[] {
  return [...changes].sort(compareChanges);
}
