import { SAVED_PLAN_VERSION, savedChange, type SavedPlan, type SavedRun } from '../plan/saved.js';
import type { SourcePlan } from '../plan/types.js';
import { sourceErrors, summarize } from './describe.js';
import { planWarnings } from './enforcement-words.js';
import { jsonRollout } from './json.js';

/**
 * The saved plan (`--dry-run --out FILE`): the JSON plan (`format_version` "1", same sources and summary) plus
 * `saved_plan_version`, with each change saved whole as the plan holds it (plan/saved.ts `savedChange`): besides the
 * JSON plan's keys, the live resource and the declaration it was planned against and what the apply does, from which
 * the check of the saved plan compares; and `run`, the record of the run that made it.
 */
export function renderSavedPlan(plans: readonly SourcePlan[], run: SavedRun): string {
  const summary = summarize(plans);
  const document: SavedPlan & Record<string, unknown> = {
    format_version: '1',
    saved_plan_version: SAVED_PLAN_VERSION,
    sources: plans.map((source) => ({
      name: source.name,
      organization: source.organization,
      revision: source.revision,
      changes: source.plan === null ? null : source.plan.changes.map(savedChange),
      ...((source.plan?.rollouts ?? []).length === 0 ? {} : { rollouts: source.plan!.rollouts!.map(jsonRollout) }),
      warnings: source.plan === null ? [] : planWarnings(source.plan),
      errors: [...sourceErrors(source)],
    })),
    summary: { create: summary.create, update: summary.update, replace: summary.replace, delete: summary.delete },
    run,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
