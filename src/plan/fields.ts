import type { FieldChange } from './types.js';

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
export function diffField<T>(fields: Fields, field: string, before: T, after: T, same: (a: T, b: T) => boolean): void {
  if (!same(before, after)) fields[field] = { before, after };
}

export function strictEqual<T>(a: T, b: T): boolean {
  return a === b;
}

/** Every non-null entry as a creation (before null). */
export function created(values: Record<string, unknown>): Fields {
  const fields: Fields = {};
  for (const [key, value] of Object.entries(values)) {
    if (value !== null) fields[key] = { before: null, after: value };
  }
  return fields;
}
