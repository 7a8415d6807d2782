/**
 * The ids the API hands out, by the prefix of each resource, checked before one becomes part of a URL. An id read from
 * an answer or from the declared repo is a path segment: `..` or `.` would name another endpoint
 * (`DELETE /api/v2/policies/..` is `DELETE /api/v2/`), and a very long one makes a request no server takes. An id goes
 * into a URL only when it is its prefix followed by a bounded run of letters, digits, `-` and `_`; anything else (a
 * path, a query, a `..`, an overlong text) is refused before a request is built, naming what it should have been and
 * never echoing more than its start.
 */

export type IdKind =
  | 'policy' | 'policy-set' | 'policy-set-version' | 'parameter' | 'workspace' | 'project' | 'agent-pool' | 'agent' | 'agent-token'
  | 'run' | 'task-stage' | 'policy-evaluation' | 'policy-set-outcome' | 'policy-check';

const PREFIX: Readonly<Record<IdKind, string>> = {
  policy: 'pol',
  'policy-set': 'polset',
  'policy-set-version': 'polsetver',
  parameter: 'var',
  workspace: 'ws',
  project: 'prj',
  'agent-pool': 'apool',
  agent: 'agent',
  'agent-token': 'at',
  run: 'run',
  'task-stage': 'ts',
  'policy-evaluation': 'poleval',
  'policy-set-outcome': 'psout',
  'policy-check': 'polchk',
};

/** The most characters after the prefix: the service's ids carry 16, a margin is left for other servers. */
export const MAX_ID_SUFFIX = 64;

/** How many characters of a refused id a message shows. */
const SHOWN = 40;

/**
 * The shape of an id of `kind` as a regular expression's source, without anchors: the one definition, which the
 * published schemas repeat in their `pattern`s (JSON cannot import it; test/schema-id-patterns.test.ts holds them to it).
 */
export function idPattern(kind: IdKind): string {
  return `${PREFIX[kind]}-[A-Za-z0-9_-]{1,${MAX_ID_SUFFIX}}`;
}

/** Every id kind's prefix, for the schemas' check. */
export const ID_PREFIXES: Readonly<Record<IdKind, string>> = PREFIX;

const PATTERNS = Object.fromEntries(Object.keys(PREFIX).map((kind) => [kind, new RegExp(`^${idPattern(kind as IdKind)}$`)])) as Record<IdKind, RegExp>;

export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && PATTERNS[kind].test(value);
}

/** Whether a text has the shape of an id of `kind` (a name may have it too: `ws-staging`). */
export function hasIdShape(kind: IdKind, text: string): boolean {
  return PATTERNS[kind].test(text);
}

/** What an id of `kind` looks like, for messages. */
export function idShape(kind: IdKind): string {
  return `${kind} id (${PREFIX[kind]}- followed by at most ${MAX_ID_SUFFIX} letters, digits, - or _)`;
}

/**
 * `value` when it is an id of `kind`; otherwise a TypeError naming what it should be, the value shown bounded (a
 * reader of an answer turns it into an ApiError naming the request).
 */
export function checkedId(kind: IdKind, value: unknown): string {
  if (isId(kind, value)) return value;
  throw new TypeError(`${shownId(value)} is not a ${idShape(kind)}`);
}

/** The id as a path segment; refused (TypeError) unless it is an id of `kind`, so nothing else reaches a URL. */
export function idSegment(kind: IdKind, value: string): string {
  return encodeURIComponent(checkedId(kind, value));
}

/** A value as a message may show it: JSON-quoted, its first characters and its length only when it is long. */
export function shownId(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? 'no id' : `${typeof value} ${JSON.stringify(value)?.slice(0, SHOWN) ?? ''}`;
  if (value.length <= SHOWN) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, SHOWN)).slice(0, -1)}…" (${value.length} characters)`;
}
