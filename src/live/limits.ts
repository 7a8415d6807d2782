/**
 * The edition's limits (`GET /organizations/:org/entitlement-set`), read for a plan only when it could pass one
 * (`mayPassLimits`): a pass with nothing to create costs no request for them. What the plan would pass is
 * plan/limits.ts's.
 */
import type { PolicyApi } from '../api/types.js';
import type { DeclaredState } from '../declared/types.js';
import { errorMessage } from '../errors.js';
import type { LiveState } from '../model.js';
import { limitErrors, mayPassLimits } from '../plan/limits.js';
import type { Plan } from '../plan/types.js';

/** The plan with an error for each limit it would pass; an API that does not say its limits is a warning. */
export async function checkedAgainstLimits(plan: Plan, declared: DeclaredState, live: LiveState, api: PolicyApi, organization: string): Promise<Plan> {
  if (!mayPassLimits(plan, declared)) return plan;
  try {
    const limits = await api.getEntitlements(organization);
    return { ...plan, errors: [...plan.errors, ...limitErrors(plan, declared, live, limits)] };
  } catch (error) {
    // An API that does not say its limits is not refused: the service refuses what passes them, naming the limit.
    return { ...plan, warnings: [...plan.warnings, `the edition's limits could not be read (${errorMessage(error)}); they were not checked`] };
  }
}
