/**
 * A YAML set's `enforcement-level` and `rollout:` for its members: each policy of the repo that names the set (by name)
 * and declares neither in its own settings takes them, as if it had declared them itself; its rollout's state then
 * lives in its own marker, as any policy's. A policy's own declaration wins. A member of two YAML sets that give
 * different ones, with none of its own, is a problem naming the policy and both set files.
 */
import type { SourceProblem } from '../errors.js';
import { levelProblem } from './policy-settings.js';
import type { DeclaredPolicy, DeclaredPolicySet, MemberEnforcement } from './types.js';

/** The policies with what their YAML sets give them; every conflict a problem. */
export function withMemberEnforcement(
  policies: readonly DeclaredPolicy[], sets: readonly DeclaredPolicySet[],
): { policies: DeclaredPolicy[]; problems: SourceProblem[] } {
  const giving = sets.filter((set) => set.content === null && set.members != null && set.settingsFile !== null);
  if (giving.length === 0) return { policies: [...policies], problems: [] };
  const problems: SourceProblem[] = [];
  const merged = policies.map((policy) => {
    if (policy.levelFrom !== undefined || policy.policySets === null) return policy;
    const from = giving.filter((set) => policy.policySets!.includes(set.name));
    const first = from[0];
    if (first === undefined) return policy;
    const where = policy.settingsFile ?? policy.file;
    const other = from.find((set) => enforcementKey(set.members!) !== enforcementKey(first.members!));
    if (other !== undefined) {
      problems.push({
        file: where,
        message: `policy "${policy.name}" is in policy sets that give their members different enforcement: ${first.settingsFile} (${words(first.members!)}) and ${other.settingsFile} (${words(other.members!)}); declare enforcement-level (and rollout) in its own settings`,
      });
      return policy;
    }
    const { enforcementLevel, rollout } = first.members!;
    const invalid = levelProblem(enforcementLevel, policy.kind, 'policy');
    if (invalid !== null) {
      problems.push({ file: where, message: `policy "${policy.name}" takes its level from ${first.settingsFile}: ${invalid}` });
      return policy;
    }
    return { ...policy, enforcementLevel, rollout, levelFrom: first.settingsFile! };
  });
  return { policies: merged, problems };
}

/** Two sets give the same when their levels and rollouts' conditions are the same (`7d` and `168h` alike). */
function enforcementKey(members: MemberEnforcement): string {
  const r = members.rollout;
  return JSON.stringify([members.enforcementLevel, r === null ? null : [r.start, r.cleanRuns, r.failingWorkspaces, r.afterMs]]);
}

function words(members: MemberEnforcement): string {
  const r = members.rollout;
  return r === null ? members.enforcementLevel : `${members.enforcementLevel}, rollout from ${r.start}: ${r.cleanRuns} clean runs, ${r.failingWorkspaces} failing workspaces, after ${r.after}`;
}
