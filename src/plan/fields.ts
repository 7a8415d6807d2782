/**
 * Fields and how the planner compares them: both sides of a comparison go through the same normaliser here (ids as
 * sorted sets, text with its line ends normalised); code is compared by digest (src/code-content.ts), descriptions
 * without their ownership marker (marker.ts).
 */
import { normalizeLineEnds } from '../line-ends.js';
import type { FieldChange, FieldValue } from './types.js';

export type Fields = Record<string, FieldChange>;

/** Sorted copy, for set comparison and stable display. */
export function sortedIds(ids: readonly string[]): string[] {
  return [...new Set(ids)].sort();
}

export function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const left = sortedIds(a);
  const right = sortedIds(b);
  return left.length === right.length && left.every((id, i) => id === right[i]);
}

/** Adds `field` to `fields` when before and after differ by `same`. */
export function diffField<T extends FieldValue>(fields: Fields, field: string, before: T, after: T, same: (a: T, b: T) => boolean): void {
  if (!same(before, after)) fields[field] = { before, after };
}

/** Text compared with line ends normalised (CRLF/CR -> LF). */
export function sameText(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  return normalizeLineEnds(a) === normalizeLineEnds(b);
}

export function strictEqual<T>(a: T, b: T): boolean {
  return a === b;
}

/** Every non-null entry as a creation (before null). */
export function created(values: Record<string, FieldValue>): Fields {
  const fields: Fields = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== null) fields[key] = { before: null, after: value };
  }
  return fields;
}

/** Every non-null entry as a deletion (after null). */
export function removed(values: Record<string, FieldValue>): Fields {
  const fields: Fields = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== null) fields[key] = { before: value, after: null };
  }
  return fields;
}
