/**
 * The edition's limits (`GET /organizations/:org/entitlement-set`) against what a plan would leave: a plan that would
 * pass one is refused before any write, naming the limit. Pure.
 */
import type { DeclaredState } from '../declared/types.js';
import type { LiveState } from '../model.js';
import { count } from '../plural.js';
import { hasIdShape } from '../api/ids.js';
import type { Plan } from './types.js';

export interface Limits {
  policySetLimit: number | null;
  policyLimit: number | null;
  versionedPolicySetLimit: number | null;
}

/**
 * Whether the plan could pass a limit at all: it creates a set, or changes the sets of a policy while the source
 * declares sets whose members it names. Only then are the limits read.
 */
export function mayPassLimits(plan: Plan, declared: DeclaredState): boolean {
  const membersDeclared = (declared.policySets ?? []).some((set) => set.content === null);
  return plan.changes.some((c) => (c.resource === 'policy-set' && c.action === 'create') || (membersDeclared && c.resource === 'policy' && c.fields['policy-sets'] !== undefined));
}

export function limitErrors(plan: Plan, declared: DeclaredState, live: LiveState, limits: Limits): string[] {
  const errors: string[] = [];
  const sets = plan.changes.filter((c) => c.resource === 'policy-set');
  const created = sets.filter((c) => c.action === 'create');
  const deleted = sets.filter((c) => c.action === 'delete');
  const liveSets = live.policySets ?? [];
  const total = liveSets.length + created.length - deleted.length;
  if (limits.policySetLimit !== null && created.length > 0 && total > limits.policySetLimit) {
    errors.push(`limit: the plan would leave ${count(total, 'policy set')} in the organization; its edition allows ${limits.policySetLimit} (policy-set-limit). Nothing was written`);
  }
  const versionedCreates = created.filter((c) => c.resource === 'policy-set' && c.declared?.content != null).length;
  const versioned = liveSets.filter((s) => s.versioned).length + versionedCreates;
  if (limits.versionedPolicySetLimit !== null && versionedCreates > 0 && versioned > limits.versionedPolicySetLimit) {
    errors.push(`limit: the plan would leave ${count(versioned, 'versioned policy set')}; the organization's edition allows ${limits.versionedPolicySetLimit} (versioned-policy-set-limit). Nothing was written`);
  }
  if (limits.policyLimit !== null) {
    const liveIds = new Map(liveSets.map((s) => [s.name, s.id]));
    for (const set of declared.policySets ?? []) {
      if (set.content !== null) continue;
      const id = liveIds.get(set.name);
      const members = declared.policies.filter((p) => p.policySets?.some((entry) => entry === set.name || (hasIdShape('policy-set', entry) && entry === id)) === true).length;
      if (members > limits.policyLimit) {
        errors.push(`limit: policy set "${set.name}" would hold ${count(members, 'policy', 'policies')}; the organization's edition allows ${limits.policyLimit} in a set (policy-limit). Nothing was written`);
      }
    }
  }
  return errors;
}
