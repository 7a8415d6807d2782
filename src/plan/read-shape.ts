/**
 * A small typed reader of JSON that was written by this tool but may have been edited since (a saved plan): each
 * reader checks one value's shape and returns it typed, or throws a ShapeError naming where it is wrong. Objects are
 * read key by key into new values, so what is returned is exactly what was checked. Pure.
 */

export class ShapeError extends Error {
  constructor(readonly at: string, readonly problem: string) {
    super(`${at === '' ? 'it' : at} ${problem}`);
  }
}

/** Reads the value at `at` (a path such as `live.updatedAt`, for messages). */
export type Reader<T> = (value: unknown, at: string) => T;

function expect(at: string, what: string, value: unknown): never {
  throw new ShapeError(at, `must be ${what}, not ${quoted(value)}`);
}

export const text: Reader<string> = (value, at) => (typeof value === 'string' ? value : expect(at, 'a string', value));

export const flag: Reader<boolean> = (value, at) => (typeof value === 'boolean' ? value : expect(at, 'true or false', value));

export const count: Reader<number> = (value, at) =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : expect(at, 'a whole number, 0 or more', value);

export const digest: Reader<string> = (value, at) =>
  typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? value : expect(at, 'a sha256 digest (64 hex digits)', value);

export function nullable<T>(read: Reader<T>): Reader<T | null> {
  return (value, at) => (value === null ? null : read(value, at));
}

export function listOf<T>(read: Reader<T>): Reader<T[]> {
  return (value, at) => (Array.isArray(value) ? value.map((item: unknown, index) => read(item, `${at}[${index}]`)) : expect(at, 'a list', value));
}

export function oneOf<T extends string>(values: readonly T[]): Reader<T> {
  return (value, at) => values.find((v) => v === value) ?? expect(at, `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`, value);
}

/**
 * An object's entries, checked to hold every `required` key and no key outside `required` and `optional`; a key
 * with an undefined value counts as absent.
 */
export function entries(value: unknown, at: string, required: readonly string[], optional: readonly string[] = []): Map<string, unknown> {
  const found = record(value, at);
  const missing = required.find((key) => !found.has(key));
  if (missing !== undefined) throw new ShapeError(at, `has no ${JSON.stringify(missing)}`);
  const unknown = [...found.keys()].find((key) => !required.includes(key) && !optional.includes(key));
  if (unknown !== undefined) throw new ShapeError(at, `has an unknown key ${JSON.stringify(unknown)}`);
  return found;
}

/** An object's entries, whatever its keys; a key with an undefined value counts as absent. */
export function record(value: unknown, at: string): Map<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) expect(at, 'an object', value);
  return new Map(Object.entries(value).filter(([, v]) => v !== undefined));
}

/** The path of a key below `at`: `at.key`, or `at["a-key"]` when the key is not a plain name. */
export function below(at: string, key: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return `${at}[${JSON.stringify(key)}]`;
  return at === '' ? key : `${at}.${key}`;
}

/** A value as a message quotes it: a string in quotes, anything else as JSON with its type. */
export function quoted(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  const type = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return `${JSON.stringify(value) ?? String(value)} (${type})`;
}
