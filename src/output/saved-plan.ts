import { SAVED_PLAN_VERSION, savedChange, type SavedPlan } from '../plan/saved.js';
import type { SourcePlan } from '../plan/types.js';
import { sourceErrors, summarize } from './describe.js';
import { plainFields } from '../plan/plain-fields.js';

/**
 * The saved plan (`--dry-run --out FILE`): the JSON plan (`format_version` "1", same sources, changes and summary)
 * plus `saved_plan_version` and, for each change, the fingerprints of the live resource and the declaration it was
 * planned against, and what the apply needs to do it again exactly.
 */
export function renderSavedPlan(plans: readonly SourcePlan[]): string {
  const summary = summarize(plans);
  const document: SavedPlan & Record<string, unknown> = {
    format_version: '1',
    saved_plan_version: SAVED_PLAN_VERSION,
    sources: plans.map((source) => ({
      name: source.name,
      organization: source.organization,
      revision: source.revision,
      changes: source.plan === null ? null : source.plan.changes.map((change) => savedChange(change, plainFields(change))),
      warnings: [...(source.plan?.warnings ?? [])],
      errors: [...sourceErrors(source)],
    })),
    summary: { create: summary.create, update: summary.update, replace: summary.replace, delete: summary.delete },
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
