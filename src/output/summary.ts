import type { ChangeAction, SourcePlan } from '../plan/types.js';

export type PlanSummary = Record<ChangeAction, number>;

/** Changes by action over all sources; deletions (agent clean-ups included) count like any change. */
export function summarize(plans: readonly SourcePlan[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0 };
  for (const { plan } of plans) {
    for (const change of plan.changes) summary[change.action] += 1;
  }
  return summary;
}

export function totalChanges(summary: PlanSummary): number {
  return summary.create + summary.update + summary.replace + summary.delete;
}

/** Terraform's closing line, e.g. `Plan: 1 to create, 0 to update, 0 to replace, 2 to delete.` */
export function planLine(summary: PlanSummary): string {
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.replace} to replace, ${summary.delete} to delete.`;
}

export const NO_CHANGES = 'No changes. The API matches the declared repo.';
export const NO_CHANGES_WITH_ERRORS = 'No changes planned, but there are errors (see above).';
