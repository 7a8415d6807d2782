/** What every format says of a plan: the counts and closing lines, field values on one line, code diffs. */
import { structuredPatch } from 'diff';
import { normalizeLineEnds } from '../line-ends.js';
import { codeSummary } from '../code-content.js';
import { byCodeUnit } from '../order.js';
import type { Change, ChangeAction, ChangeResult, ContentFiles, FieldChange, FieldValue, ScopeNames, SourcePlan } from '../plan/types.js';
import { isScopeField } from '../plan/scope-names.js';
import { savedRefusal, type SavedRefusal } from '../plan/saved.js';
import { count } from '../plural.js';

export type PlanSummary = Record<ChangeAction, number>;

/** Changes by action over all sources; deletions (agent clean-ups included) count like any change. */
export function summarize(plans: readonly SourcePlan[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0 };
  for (const { plan } of plans) {
    for (const change of plan?.changes ?? []) summary[change.action] += 1;
  }
  return summary;
}

/** A set content's changed files are listed up to this many; past it, a count of the rest. */
export const MAX_CONTENT_FILES = 20;

/**
 * A content update's changed files, as every format lists them: a heading (`3 files changed`), then each file marked
 * `+` added, `~` changed or `-` removed, at most MAX_CONTENT_FILES, then how many more. Empty when the change does not
 * know them (its content before was not seen by this run's state dir).
 */
export function contentFileLines(change: Change): { heading: string; files: Array<{ mark: '+' | '~' | '-'; path: string }>; more: number } | null {
  if (change.resource !== 'policy-set' || change.contentFiles === undefined) return null;
  const { added, changed, removed }: ContentFiles = change.contentFiles;
  const all = [
    ...added.map((path) => ({ mark: '+' as const, path })),
    ...changed.map((path) => ({ mark: '~' as const, path })),
    ...removed.map((path) => ({ mark: '-' as const, path })),
  ].sort((a, b) => byCodeUnit(a.path, b.path));
  const parts = [added.length > 0 ? `${added.length} added` : '', changed.length > 0 ? `${changed.length} changed` : '', removed.length > 0 ? `${removed.length} removed` : ''];
  const heading = `${count(all.length, 'file')} changed (${parts.filter((p) => p !== '').join(', ')})`;
  return { heading, files: all.slice(0, MAX_CONTENT_FILES), more: Math.max(0, all.length - MAX_CONTENT_FILES) };
}

function scopeOf(change: Change): ScopeNames | undefined {
  return change.resource === 'policy-set' || change.resource === 'agent-pool' ? change.scope : undefined;
}

/**
 * A change's fields as every format shows them to a person: a scope or access field's workspaces and projects by
 * name (the names the change carries, sorted), an id whose name is not known as the id.
 */
export function shownFields(change: Change): Array<[string, FieldChange]> {
  const names = scopeOf(change)?.names;
  const named = (value: FieldValue): FieldValue => (names === undefined || !Array.isArray(value) ? value : (value as string[]).map((id) => names[id] ?? id).sort());
  return Object.entries(change.fields).map(([key, field]) => [key, isScopeField(change.resource, key) ? { before: named(field.before), after: named(field.after) } : field]);
}

/** Under a scope field: each wildcard the repo wrote in it and what it matched when the plan was made. */
export function wildcardLines(change: Change, field: string): string[] {
  return (scopeOf(change)?.wildcards ?? [])
    .filter((w) => w.field === field)
    .map((w) => `"${w.pattern}" matched ${w.matched.length === 0 ? 'nothing' : w.matched.join(', ')} today`);
}

/** Every error of a source: why no plan could be made, or the plan's refusals and failed actions. */
export function sourceErrors(source: SourcePlan): readonly string[] {
  return source.plan === null ? source.errors : source.plan.errors;
}

/**
 * Why a pass that made a plan failed: the plan's errors, or else each failed change with the message of its failure
 * (a policy set version the service errored says the service's `error-message`).
 */
export function passErrors(source: SourcePlan, results: readonly ChangeResult[]): readonly string[] {
  const errors = sourceErrors(source);
  if (errors.length > 0) return errors;
  return results.filter((r) => r.outcome === 'failed').map((r) => `${r.change.action} ${r.change.resource} "${r.change.name}" failed: ${r.message ?? 'unknown error'}`);
}

const REFUSED_WORDS: Record<SavedRefusal, string> = {
  stale: 'it is stale: the live state or the declared repo changed since it was made',
  refused: 'it is not what a plan made now would do',
  unusable: 'it holds errors or no plan',
};

/** A saved plan not applied, said in place of the changes: what happened, and why; null for a source without that. */
export function notAppliedLine(source: SourcePlan): string | null {
  const refusal = source.plan === null ? null : savedRefusal(source.plan.errors);
  return refusal === null ? null : `The saved plan was not applied: ${REFUSED_WORDS[refusal]}.`;
}

/** What a planned source with no change says in place of its changes: nothing while it has errors, which say what is wrong. */
export function noChangeLine(source: SourcePlan): string | null {
  return notAppliedLine(source) ?? (sourceErrors(source).length > 0 ? null : 'No changes.');
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
  // A plan with errors is not applied: its changes are not counted as a plan, but said to be held back by them.
  const blocked = plans.filter((s) => s.plan !== null && s.plan.errors.length > 0 && s.plan.changes.length > 0);
  const summary = summarize(plans.filter((s) => !blocked.includes(s)));
  const unplanned = plans.filter((s) => s.plan === null).length;
  const lines: string[] = [];
  if (totalChanges(summary) > 0) lines.push(planLine(summary));
  if (blocked.length > 0) lines.push(blockedLine(blocked, plans.length, where));
  if (unplanned > 0) lines.push(`No plan for ${unplanned} of ${count(plans.length, 'source')}: see the errors ${where}.`);
  if (lines.length > 0) return lines;
  if (plans.some((s) => notAppliedLine(s) !== null)) return [`Nothing was applied (see the errors ${where}). Make a new plan.`];
  if (plans.some((s) => sourceErrors(s).length > 0)) return [`No changes planned, but there are errors (see ${where}).`];
  const kept = keptUndeclared(plans);
  return [kept > 0 ? `No changes. ${keptLine(kept)}` : NO_CHANGES];
}

/** e.g. `No plan to apply: the errors above block 1 planned change.`, naming the sources when the run has several. */
function blockedLine(blocked: readonly SourcePlan[], sources: number, where: ErrorsWhere): string {
  const changes = count(totalChanges(summarize(blocked)), 'planned change');
  if (sources === 1) return `No plan to apply: the errors ${where} block ${changes}.`;
  return `Not to be applied: the errors ${where} block ${changes} of ${blocked.map((s) => `source "${s.name}"`).join(', ')}.`;
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

/** A short description of a code text (or of a saved plan's code summary), for places that do not show it whole. */
export function describeCode(code: unknown): string {
  const summary = codeSummary(code);
  if (summary === null) return '(none)';
  const { lines, bytes } = summary;
  return `(${count(lines, 'line')}, ${count(bytes, 'byte')})`;
}

/** Whether a change's code field is shown as a diff (both texts known) rather than described. */
export function hasCodeDiff(change: Change): boolean {
  const code = change.fields['code'];
  return code !== undefined && typeof code.before === 'string' && typeof code.after === 'string';
}

/** Appends `items` one by one: a spread (`push(...items)`) of a large array overflows the call stack. */
export function pushAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** A code diff shows at most this many changed lines, then says how many more there are. */
export const MAX_DIFF_CHANGED_LINES = 200;
/** Past this many changed lines the minimal diff is not searched for (its cost grows with the square of the change). */
const MAX_EDIT_LENGTH = 400;
/** Nor when the lines between the first and last the texts share are more than this many. */
const MAX_REGION_LINES = 4000;
const CONTEXT = 3;

interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/**
 * The unified diff (3 lines of context) of a change's code, live -> declared, with line ends normalised (a
 * line-end-only difference is not drift, so it is not shown either); empty when none. At most
 * MAX_DIFF_CHANGED_LINES changed lines are shown, then a line `… N more lines changed`. A change too large for a
 * minimal diff is shown line against line, found in linear time.
 */
export function codeDiffLines(change: Change): string[] {
  const code = change.fields['code'];
  if (code === undefined || typeof code.before !== 'string' || typeof code.after !== 'string') return [];
  const before = normalizeLineEnds(code.before);
  const after = normalizeLineEnds(code.after);
  const newName = change.resource === 'policy' && change.declared !== null ? change.declared.code.file : 'declared';
  const oldName = `live ${change.id ?? ''}`.trim();
  const oldLines = splitLines(before);
  const newLines = splitLines(after);
  const [head, tail] = sharedEnds(oldLines, newLines);
  const changedRegion = oldLines.length + newLines.length - 2 * (head + tail);
  const hunks: Hunk[] = (changedRegion > MAX_REGION_LINES ? null : minimalHunks(oldLines, newLines, head, tail))
    ?? lockstepHunks(oldLines, newLines, head, tail);
  const lines = [`--- ${oldName}`, `+++ ${newName}`];
  let shown = 0;
  let hidden = 0;
  for (const hunk of hunks) {
    if (shown >= MAX_DIFF_CHANGED_LINES) {
      hidden += hunk.lines.filter(isChanged).length;
      continue;
    }
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      const changed = isChanged(line);
      if (changed && shown >= MAX_DIFF_CHANGED_LINES) hidden += 1;
      else if (shown < MAX_DIFF_CHANGED_LINES) {
        lines.push(line);
        if (changed) shown += 1;
      }
    }
  }
  if (hidden > 0) lines.push(`… ${count(hidden, 'more line', 'more lines')} changed`);
  return lines;
}

function isChanged(line: string): boolean {
  return line.startsWith('+') || line.startsWith('-');
}

/**
 * The minimal diff of the lines between the shared first and last ones (with context), its line numbers those of the
 * whole texts; null when it takes more than MAX_EDIT_LENGTH edits.
 */
function minimalHunks(oldLines: readonly string[], newLines: readonly string[], head: number, tail: number): Hunk[] | null {
  const from = Math.max(0, head - CONTEXT);
  const text = (lines: readonly string[]) => {
    const region = lines.slice(from, Math.min(lines.length, lines.length - tail + CONTEXT));
    return region.length === 0 ? '' : `${region.join('\n')}\n`;
  };
  const patch = structuredPatch('', '', text(oldLines), text(newLines), '', '', { context: CONTEXT, maxEditLength: MAX_EDIT_LENGTH });
  if (patch === undefined) return null;
  return patch.hunks.map((hunk) => ({ ...hunk, oldStart: hunk.oldStart + from, newStart: hunk.newStart + from }));
}

type Op = { kind: ' ' | '-' | '+'; text: string; oldLine: number; newLine: number };

/**
 * Hunks found in linear time, for a change too large for a minimal diff: the lines are paired in order, a pair that
 * differs is removed and added, and the lines one text has past the end of the other are removed or added.
 */
function lockstepHunks(oldLines: readonly string[], newLines: readonly string[], head: number, tail: number): Hunk[] {
  const ops: Op[] = [];
  for (let i = Math.max(0, head - CONTEXT); i < head; i += 1) ops.push({ kind: ' ', text: oldLines[i]!, oldLine: i, newLine: i });
  const oldEnd = oldLines.length - tail;
  const newEnd = newLines.length - tail;
  const paired = head + Math.min(oldEnd - head, newEnd - head);
  for (let i = head; i < paired; i += 1) {
    if (oldLines[i] === newLines[i]) ops.push({ kind: ' ', text: oldLines[i]!, oldLine: i, newLine: i });
    else ops.push({ kind: '-', text: oldLines[i]!, oldLine: i, newLine: i }, { kind: '+', text: newLines[i]!, oldLine: i + 1, newLine: i });
  }
  for (let i = paired; i < oldEnd; i += 1) ops.push({ kind: '-', text: oldLines[i]!, oldLine: i, newLine: paired });
  for (let i = paired; i < newEnd; i += 1) ops.push({ kind: '+', text: newLines[i]!, oldLine: oldEnd, newLine: i });
  for (let i = 0; i < Math.min(CONTEXT, tail); i += 1) ops.push({ kind: ' ', text: oldLines[oldEnd + i]!, oldLine: oldEnd + i, newLine: newEnd + i });
  const hunks: Hunk[] = [];
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]!.kind === ' ') i += 1;
    if (i >= ops.length) break;
    let start = i;
    for (let c = 0; c < CONTEXT && start > 0 && ops[start - 1]!.kind === ' '; c += 1) start -= 1;
    let end = i;
    // A hunk runs on while the next change is within two contexts of the last.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== ' ') end += 1;
      let gap = end;
      while (gap < ops.length && ops[gap]!.kind === ' ' && gap - end < 2 * CONTEXT) gap += 1;
      if (gap < ops.length && ops[gap]!.kind !== ' ') end = gap;
      else {
        end = Math.min(end + CONTEXT, gap);
        break;
      }
    }
    const slice = ops.slice(start, end);
    const first = slice[0]!;
    hunks.push({
      oldStart: first.oldLine + 1,
      oldLines: slice.filter((op) => op.kind !== '+').length,
      newStart: first.newLine + 1,
      newLines: slice.filter((op) => op.kind !== '-').length,
      lines: slice.map((op) => `${op.kind}${op.text}`),
    });
    i = end;
  }
  return hunks;
}

/** How many first lines, and how many last lines (not overlapping them), the two texts share. */
function sharedEnds(oldLines: readonly string[], newLines: readonly string[]): [number, number] {
  let head = 0;
  while (head < oldLines.length && head < newLines.length && oldLines[head] === newLines[head]) head += 1;
  let tail = 0;
  while (
    tail < oldLines.length - head && tail < newLines.length - head &&
    oldLines[oldLines.length - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) tail += 1;
  return [head, tail];
}

/** The lines of a text; a final line end does not start another line. */
function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
