/** Keys and list indexes from a document's root to one value, e.g. `['sources', 0, 'name']`. */
export type KeyPath = readonly (string | number)[];

/** How messages name a value: `sources[0].max-deletes`; the root is `the file`. */
export function keyLabel(path: KeyPath): string {
  if (path.length === 0) return 'the file';
  return path.map((segment, i) => (typeof segment === 'number' ? `[${segment}]` : i === 0 ? segment : `.${segment}`)).join('');
}

/** A JSON pointer (ajv's `instancePath`) as a key path; list indexes become numbers. */
export function pointerPath(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((segment) => (/^(0|[1-9][0-9]*)$/.test(segment) ? Number(segment) : segment));
}

/** How much of a long string value a message shows. */
const SHOWN_CHARACTERS = 60;

/** A short rendering of a value for a message. */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  // A value is echoed bounded: a 20,000-character id in a file is named by its start and its length.
  if (typeof value === 'string' && value.length > SHOWN_CHARACTERS) return `${JSON.stringify(value.slice(0, SHOWN_CHARACTERS)).slice(0, -1)}…" (${value.length} characters)`;
  return JSON.stringify(value) ?? String(value);
}
