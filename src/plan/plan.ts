import type { DeclaredState } from '../declared/types.js';
import { checkGuards } from './guards.js';
import { sortChanges } from './order.js';
import { planPolicies } from './policies.js';
import { planPools } from './pools.js';
import { planPrune } from './prune.js';
import type { LiveState } from '../model.js';
import type { Change, Plan, PlanOptions } from './types.js';

/**
 * The pure diff of one source: what the apply must do so that the API matches the declared state.
 * No I/O, no clock (`options.now`), no logger. A plan with errors must not be applied.
 */
export function planChanges(declared: DeclaredState, live: LiveState, options: PlanOptions): Plan {
  const policies = planPolicies(declared.policies, live.policies, options);
  const pools = planPools(declared.pools, live.pools, options);
  const prune = planPrune(declared, live, pools.claimed, options);
  const changes: Change[] = sortChanges([...policies.changes, ...pools.changes, ...prune.deletes]);
  const warnings = [...policies.warnings, ...pools.warnings];
  if (prune.kept.length > 0) {
    warnings.push(`not declared and kept because prune is off: ${prune.kept.join(', ')}`);
  }
  return { changes, warnings, errors: checkGuards(declared, changes, options) };
}
