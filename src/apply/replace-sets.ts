import type { PolicyApi } from '../api/types.js';
import type { PolicyChange } from '../plan/types.js';

/**
 * A replace deletes the policy, then creates it again in the sets it was in. Those come from the list's
 * `relationships.policy-sets`; a list that left them out while `policy-set-count` is above 0 would drop the policy
 * from its sets without a word. So before the delete: when the count and the ids disagree, the policy is read again
 * with `include=policy_sets`; when the ids still cannot be known, the replace is refused, naming the policy.
 * Resolves with the change to carry out (its live side holding the ids read).
 */
export async function withKnownSets(change: PolicyChange, api: PolicyApi): Promise<PolicyChange> {
  const live = change.live;
  if (change.action !== 'replace' || live === null || change.declared?.policySets != null) return change;
  const count = live.policySetCount ?? live.policySetIds.length;
  if (count <= live.policySetIds.length) return change;
  const read = await api.getPolicy(live.id, { includePolicySets: true });
  if (read.policySetIds.length < Math.max(count, read.policySetCount)) {
    throw new Error(
      `policy "${live.name}" is in ${Math.max(count, read.policySetCount)} policy sets, but the API names only ${read.policySetIds.length} of them; ` +
        'the replace (delete, then create) is refused so that the policy is not dropped from its sets. Name its sets in policy-sets in its settings file, or replace it by hand',
    );
  }
  return { ...change, live: { ...live, policySetIds: read.policySetIds, policySetCount: read.policySetCount } };
}
