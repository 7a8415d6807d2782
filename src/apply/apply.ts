import { DEFAULT_API_CONCURRENCY } from '../config/to-config.js';
import { errorMessage } from '../errors.js';
import { mapLimit } from '../map-limit.js';
import { NOT_STARTED, type Change, type ChangeResult, type Plan } from '../plan/types.js';
import type { ApplyOptions } from './options.js';
import { sortIntoWaves, WAVES, type Wave } from './waves.js';

export type { ApplyOptions } from './options.js';
export { NOT_STARTED } from '../plan/types.js';

/**
 * Executes exactly the planned changes, wave by wave in the order of the table in waves.ts: one wave after the other,
 * the changes of a wave side by side (at most `concurrency`). A fresh plan and a checked saved plan (see
 * plan/saved.ts) both come here. One failed action does not stop the others, except where a wave's `skip` rule says
 * so (a failed pool create stops the pool deletes: dependent-deletes.ts); a policy created in this pass whose upload
 * fails is deleted again. Resolves with one result per planned change, in plan order.
 */
export async function applyPlan(plan: Plan, options: ApplyOptions, waves: readonly Wave[] = WAVES): Promise<ChangeResult[]> {
  const results = new Map<Change, ChangeResult>();
  const level = options.appliedLogLevel ?? 'info';
  const limit = Math.max(1, options.concurrency ?? DEFAULT_API_CONCURRENCY);
  const sorted = sortIntoWaves(plan.changes, waves);
  for (const [index, wave] of waves.entries()) {
    const changes = sorted[index]!;
    if (changes.length === 0 || options.stop?.aborted === true) continue;
    options.logger[level]({ wave: wave.name, changes: changes.length }, `apply wave "${wave.name}"`);
    options.onWave?.(wave.name, changes.length);
    const record = (change: Change, outcome: ChangeResult['outcome'], message: string | null = null) => {
      const result = { change, outcome, message };
      results.set(change, result);
      options.onResult?.(result);
      const meta = { wave: wave.name, resource: change.resource, resourceName: change.name, action: change.action, outcome };
      if (outcome === 'failed') options.logger.error({ ...meta, error: message }, 'change failed');
      else options.logger[level](meta, 'change applied');
    };
    await mapLimit(changes, limit, async (change) => {
      if (options.stop?.aborted === true) return;
      const blocked = wave.skip?.(change, results) ?? null;
      if (blocked !== null) return record(change, 'skipped', blocked);
      try {
        const skipped = await wave.run(change, options);
        record(change, skipped === undefined ? 'applied' : 'skipped', skipped?.skipped ?? null);
      } catch (error) {
        record(change, 'failed', errorMessage(error));
      }
    });
  }
  return plan.changes.map((c) => results.get(c) ?? { change: c, outcome: 'skipped' as const, message: NOT_STARTED });
}
