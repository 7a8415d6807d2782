/**
 * Names where the service wants ids: a policy's `policy-sets` by set name, resolved against the live sets and the sets
 * this source declares. Pure: the declared state comes back with every name it can resolve turned into its id; a name
 * of a set the plan creates stays a name, which the apply resolves once the set exists; a name that matches nothing is
 * an error naming it and the closest match.
 */
import type { DeclaredState } from '../declared/types.js';
import type { LiveState } from '../model.js';
import { closest } from '../suggest.js';

export interface Resolved {
  declared: DeclaredState;
  errors: string[];
  warnings: string[];
}

/** A `polset-` id as the service makes them; anything else in `policy-sets` is a set's name. */
export function isSetId(entry: string): boolean {
  return /^polset-[A-Za-z0-9_-]+$/.test(entry);
}

export function resolveNames(declared: DeclaredState, live: LiveState): Resolved {
  const errors: string[] = [];
  const liveIds = new Map((live.policySets ?? []).map((set) => [set.name, set.id]));
  const declaredSets = new Map((declared.policySets ?? []).map((set) => [set.name, set]));
  const known = [...new Set([...liveIds.keys(), ...declaredSets.keys()])].sort();
  const policies = declared.policies.map((policy) => {
    if (policy.policySets === null || policy.policySets.every(isSetId)) return policy;
    const resolved = policy.policySets.map((entry) => {
      if (isSetId(entry)) return entry;
      const versioned = declaredSets.get(entry)?.content != null;
      if (versioned) errors.push(`policy "${policy.name}" names policy set "${entry}", a versioned set: its policies come from its folder, never by membership`);
      const id = liveIds.get(entry);
      if (id !== undefined || declaredSets.has(entry)) return id ?? entry;
      const near = closest(entry, known);
      errors.push(`policy "${policy.name}" names policy set "${entry}", which neither the organization nor this repo has${near === null ? '' : `; did you mean "${near}"?`}`);
      return entry;
    });
    return { ...policy, policySets: resolved };
  });
  return { declared: { ...declared, policies }, errors, warnings: [] };
}
