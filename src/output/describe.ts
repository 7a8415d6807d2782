/** What every format says of a plan: the counts and closing lines, field values on one line, code diffs. */
import { structuredPatch } from 'diff';
import { normalizeLineEnds } from '../line-ends.js';
import type { Change, ChangeAction, SourcePlan } from '../plan/types.js';

export type PlanSummary = Record<ChangeAction, number>;

/** Changes by action over all sources; deletions (agent clean-ups included) count like any change. */
export function summarize(plans: readonly SourcePlan[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0 };
  for (const { plan } of plans) {
    for (const change of plan?.changes ?? []) summary[change.action] += 1;
  }
  return summary;
}

/** Every error of a source: why no plan could be made, or the plan's refusals and failed actions. */
export function sourceErrors(source: SourcePlan): readonly string[] {
  return source.plan === null ? source.errors : source.plan.errors;
}

/** What a source without a plan says in place of its changes. */
export function noPlanLine(source: SourcePlan & { plan: null }): string {
  return source.unreadable === 'live'
    ? 'No plan: the live state could not be read, so nothing is known about drift.'
    : 'No plan: the declared repo is invalid.';
}

export function totalChanges(summary: PlanSummary): number {
  return summary.create + summary.update + summary.replace + summary.delete;
}

/** Terraform's closing line, e.g. `Plan: 1 to create, 0 to update, 0 to replace, 2 to delete.` */
export function planLine(summary: PlanSummary): string {
  return `Plan: ${summary.create} to create, ${summary.update} to update, ${summary.replace} to replace, ${summary.delete} to delete.`;
}

const NO_CHANGES = 'No changes. The API matches the declared repo.';

/** Where the errors are printed relative to the closing lines: below in Markdown (summary first), above in text. */
export type ErrorsWhere = 'above' | 'below';

/**
 * The closing line(s): the `Plan: ...` line when there are changes; a line for sources without a plan, which are
 * never reported as in sync; otherwise whether the API matches the repo, which it does not while undeclared live
 * resources are kept.
 */
export function closingLines(plans: readonly SourcePlan[], where: ErrorsWhere = 'above'): string[] {
  const summary = summarize(plans);
  const unplanned = plans.filter((s) => s.plan === null).length;
  const lines: string[] = [];
  if (totalChanges(summary) > 0) lines.push(planLine(summary));
  if (unplanned > 0) lines.push(`No plan for ${unplanned} of ${plans.length} source${plans.length === 1 ? '' : 's'}: see the errors ${where}.`);
  if (lines.length > 0) return lines;
  if (plans.some((s) => sourceErrors(s).length > 0)) return [`No changes planned, but there are errors (see ${where}).`];
  const kept = keptUndeclared(plans);
  return [kept > 0 ? `No changes. ${keptLine(kept)}` : NO_CHANGES];
}

/** Undeclared live resources kept over all planned sources. */
export function keptUndeclared(plans: readonly SourcePlan[]): number {
  return plans.reduce((sum, s) => sum + (s.plan?.keptUndeclared ?? 0), 0);
}

/** e.g. `3 live resources that are not declared are kept.` */
export function keptLine(kept: number): string {
  return kept === 1
    ? '1 live resource that is not declared is kept.'
    : `${kept} live resources that are not declared are kept.`;
}

/** A field value on one line: strings JSON-quoted (newlines escaped), lists as `["a", "b"]`, null as `null`. */
export function formatValue(value: unknown): string {
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  return JSON.stringify(value) ?? 'null';
}

/** A short description of a code text, for places that do not show it whole. */
export function describeCode(code: unknown): string {
  if (typeof code !== 'string') return '(none)';
  const lines = code === '' ? 0 : normalizeLineEnds(code).replace(/\n$/, '').split('\n').length;
  const bytes = Buffer.byteLength(code, 'utf8');
  return `(${lines} ${lines === 1 ? 'line' : 'lines'}, ${bytes} ${bytes === 1 ? 'byte' : 'bytes'})`;
}

/** Whether a change's code field is shown as a diff (both texts known) rather than described. */
export function hasCodeDiff(change: Change): boolean {
  const code = change.fields['code'];
  return code !== undefined && typeof code.before === 'string' && typeof code.after === 'string';
}

/**
 * The unified diff (3 lines of context) of a change's code, live -> declared, with line ends
 * normalised (a line-end-only difference is not drift, so it is not shown either). Empty when none.
 */
export function codeDiffLines(change: Change): string[] {
  const code = change.fields['code'];
  if (code === undefined || typeof code.before !== 'string' || typeof code.after !== 'string') return [];
  const before = normalizeLineEnds(code.before);
  const after = normalizeLineEnds(code.after);
  const newName = change.resource === 'policy' && change.declared !== null ? change.declared.file : 'declared';
  const patch = structuredPatch(`live ${change.id ?? ''}`.trim(), newName, before, after, '', '', { context: 3 });
  const lines = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`, ...hunk.lines);
  }
  return lines;
}
