import type { PolicyApi } from '../api/types.js';
import { runPass } from '../reconcile.js';
import { guardApi } from './api-guard.js';
import type { DaemonPass } from './daemon-types.js';

/** The daemon's pass: one `runPass` in apply mode against `api`, through a guard that honours the pass timeout. */
export function reconcilePass(api: PolicyApi): DaemonPass {
  return async (request) => {
    const guard = guardApi(api, request.signal);
    const outcome = await runPass({
      source: request.source,
      dir: request.dir,
      revision: request.revision,
      api: guard.api,
      logger: request.logger,
      mode: 'apply',
      codeCache: request.codeCache,
    });
    const errors = outcome.sourcePlan.plan.errors;
    // A pass that failed before planning anything says nothing about drift.
    const driftCount = outcome.ok || outcome.driftCount > 0 ? outcome.driftCount : null;
    return { ok: outcome.ok, driftCount, errors, apiReached: guard.reached() };
  };
}
