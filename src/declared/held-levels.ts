/**
 * A versioned set's config file as its rollout uploads it: each held policy's `enforcement_level` replaced by the
 * level the rollout holds it at, every other byte as declared. Found through the config file's outline (hcl-outline.ts),
 * so a level is replaced only in the policy block that declares it.
 */
import { outlineHcl } from '../hcl-outline.js';
import type { EnforcementLevel } from '../model.js';

/** The config text with each held policy at its held level; an error names a held policy with no level to replace. */
export function withHeldLevels(text: string, held: ReadonlyArray<{ name: string; level: EnforcementLevel }>): string {
  const starts = lineStarts(text);
  const edits: Array<{ at: number; end: number; value: string }> = [];
  const outline = outlineHcl(text);
  for (const { name, level } of held) {
    const block = outline.find((item) => item.kind === 'block' && item.name === 'policy' && item.labels[0] === name);
    const attribute = block?.items.find((item) => item.kind === 'attribute' && item.name === 'enforcement_level');
    if (attribute === undefined) throw new Error(`policy "${name}" declares no enforcement_level to hold back`);
    const at = starts[attribute.line - 1]! + attribute.column - 1;
    const found = /enforcement_level\s*=\s*"[^"\n]*"/y;
    found.lastIndex = at;
    const match = found.exec(text);
    if (match === null) throw new Error(`policy "${name}": its enforcement_level is not a quoted level`);
    edits.push({ at, end: at + match[0].length, value: `enforcement_level = "${level}"` });
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.at - a.at)) out = `${out.slice(0, edit.at)}${edit.value}${out.slice(edit.end)}`;
  return out;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}
