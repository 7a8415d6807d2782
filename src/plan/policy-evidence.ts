/**
 * Evidence per policy: for a change that tightens several policies at once (a versioned set's content, a YAML set's
 * members), what the runs in scope say of each raised policy on its own, so that a plan names which policy fails
 * where. Pure: the runs are data.
 */
import { blocks, latestEvaluated, runsOf, type ChangeEvidence, type Evidence, type PolicyEvidence, type TightenedPolicy } from './evidence.js';
import { byCodeUnit } from '../order.js';

/**
 * A change's evidence with each raised policy's own, when it tightens more than one (those the runs show already
 * enforced at their level are not raised, and left out): most failing workspaces first, then by name.
 */
export function withPolicyEvidence(change: ChangeEvidence, evidence: Evidence, policies: readonly TightenedPolicy[], inScope: readonly string[]): ChangeEvidence {
  // With one policy, or no run in scope that evaluated any, there is nothing more to say per policy.
  if (policies.length < 2 || change.evaluated === 0) return change;
  const already = change.already_enforced ?? [];
  const names = new Map(evidence.workspaces.map((w) => [w.id, w.name]));
  const raised = policies.filter((p) => !already.some((a) => a.policy === p.name));
  const found = raised.map((p): PolicyEvidence => {
    const failing: string[] = [];
    let passing = 0;
    for (const id of inScope) {
      const outcome = latestEvaluated(runsOf(evidence, p.name, id))?.outcome;
      if (outcome === 'failed') failing.push(names.get(id) ?? id);
      else if (outcome === 'passed') passing += 1;
    }
    failing.sort(byCodeUnit);
    return { policy: p.name, level: p.level, failing, passing, not_evaluated: inScope.length - failing.length - passing, blocking: blocks(p.level) && failing.length > 0 };
  });
  return { ...change, by_policy: found.sort((a, b) => b.failing.length - a.failing.length || byCodeUnit(a.policy, b.policy)) };
}
