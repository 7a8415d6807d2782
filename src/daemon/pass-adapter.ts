import type { PolicyApi } from '../api/types.js';
import { sourceErrors } from '../output/index.js';
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
    const { plan } = outcome.sourcePlan;
    // A pass that stopped before planning says nothing about drift.
    const driftCount = plan === null ? null : plan.changes.length;
    return { ok: outcome.ok, driftCount, errors: [...sourceErrors(outcome.sourcePlan)], apiReached: guard.reached() };
  };
}
