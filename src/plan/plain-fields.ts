import { codeDigest } from '../code-digest.js';
import { normalizeLineEnds } from '../line-ends.js';
import type { Change, CodeSummary, FieldChange } from './types.js';

/**
 * A change's fields as plain data, the form every plan document shows and a saved plan is checked by: each value
 * as it is (null for none), and code as a CodeSummary (its digest as compared, bytes and lines), never whole.
 */
export function plainFields(change: Change): Record<string, FieldChange> {
  const fields: Record<string, FieldChange> = {};
  for (const [name, field] of Object.entries(change.fields)) {
    const value = name === 'code' ? codeSummary : (v: unknown) => v ?? null;
    fields[name] = { before: value(field.before), after: value(field.after) };
  }
  return fields;
}

/** Code as its summary; null when there is none. */
function codeSummary(code: unknown): CodeSummary | null {
  if (isCodeSummary(code)) return { sha256: code.sha256, bytes: code.bytes, lines: code.lines };
  if (typeof code !== 'string') return null;
  return { sha256: codeDigest(code), bytes: Buffer.byteLength(code, 'utf8'), lines: lineCount(code) };
}

export function isCodeSummary(value: unknown): value is CodeSummary {
  return typeof value === 'object' && value !== null && typeof (value as { sha256?: unknown }).sha256 === 'string';
}

function lineCount(code: string): number {
  if (code === '') return 0;
  const text = normalizeLineEnds(code);
  let lines = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < text.length - 1; at = text.indexOf('\n', at + 1)) lines += 1;
  return lines;
}
