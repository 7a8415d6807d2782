import type { DeclaredState } from '../declared/types.js';
import type { Change, PlanOptions } from './types.js';
import { count } from '../plural.js';

/**
 * Deletions that count toward `max-deletes`: policies, pools and agents (an agent clean-up gone wrong, say from a
 * misread time, must not delete a fleet), and replaced policies (a replace deletes first).
 */
function countedDeletes(changes: readonly Change[]): Change[] {
  return changes.filter((change) => change.action === 'delete' || change.action === 'replace');
}

/** Refusals that forbid any write for this source. */
export function checkGuards(declared: DeclaredState, changes: readonly Change[], options: PlanOptions): string[] {
  const errors: string[] = [];
  const deletes = changes.filter((change) => change.action === 'delete');
  const declaresNothing = declared.policies.length === 0 && declared.pools.length === 0 && (declared.policySets ?? []).length === 0;
  if (declaresNothing && deletes.length > 0 && !options.allowEmpty) {
    errors.push(
      `source "${options.source}" declares no policies and no agent pools, but the plan would delete ${count(deletes.length, 'resource')}; ` +
        'refusing to apply. Check that the source points at the right folder or ref, or set allow-empty: true on the source if emptying the organization is intended.',
    );
  }
  const counted = countedDeletes(changes);
  if (counted.length > options.maxDeletes && !options.force) {
    const replaces = counted.filter((change) => change.action === 'replace').length;
    const including = replaces === 0 ? '' : ` (${replaces} of them replaced: deleted, then created again)`;
    errors.push(
      `the plan would delete ${count(counted.length, 'resource')}${including}, more than max-deletes (${options.maxDeletes}); refusing to apply. ` +
        'Check the planned deletions, then pass --force or raise max-deletes.',
    );
  }
  return errors;
}

