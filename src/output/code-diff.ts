import { structuredPatch } from 'diff';
import { normalizeLineEnds } from '../line-ends.js';
import type { Change } from '../plan/types.js';

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
