/**
 * The ids of the API's resources, checked before one becomes part of a URL. An id read from an answer or from the
 * declared repo is a path segment: `..` or `.` would name another endpoint (`DELETE /api/v2/policies/..` is
 * `DELETE /api/v2/`), and a very long one makes a request no server takes. Each kind has its prefix, then a bounded
 * run of letters, digits, `-` and `_`: nothing else reaches a path, and nothing longer is echoed whole.
 */

export type IdKind = 'policy' | 'agent-pool' | 'agent' | 'policy-set' | 'workspace' | 'project';

export const ID_PREFIX: Readonly<Record<IdKind, string>> = {
  policy: 'pol-',
  'agent-pool': 'apool-',
  agent: 'agent-',
  'policy-set': 'polset-',
  workspace: 'ws-',
  project: 'prj-',
};

/** The most characters after the prefix: the service's ids have 16, a margin is left for other servers. */
export const MAX_ID_SUFFIX = 64;

/** How many characters of a refused id a message shows. */
const SHOWN = 40;

const SUFFIX = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_ID_SUFFIX}}$`);

/** Whether `value` is an id of `kind`: its prefix, then 1 to MAX_ID_SUFFIX letters, digits, `-` or `_`. */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const prefix = ID_PREFIX[kind];
  return value.startsWith(prefix) && SUFFIX.test(value.slice(prefix.length));
}

/** Why `value` is not an id of `kind` (the value shown bounded and quoted), or null when it is one. */
export function idProblem(kind: IdKind, value: unknown): string | null {
  if (isId(kind, value)) return null;
  const prefix = ID_PREFIX[kind];
  return `${shownId(value)} is not a ${kind} id (${prefix} then 1 to ${MAX_ID_SUFFIX} letters, digits, - or _)`;
}

/**
 * `value` when it is an id of `kind`.
 * @throws TypeError naming the value, bounded: a reader of an answer turns it into an ApiError naming the request.
 */
export function checkedId(kind: IdKind, value: unknown): string {
  const problem = idProblem(kind, value);
  if (problem !== null) throw new TypeError(problem);
  return value as string;
}

/** The id as a path segment; refused (TypeError) unless it is an id of `kind`, so nothing else reaches a URL. */
export function idSegment(kind: IdKind, value: string): string {
  return encodeURIComponent(checkedId(kind, value));
}

/** A value as a message may show it: JSON-quoted, its first characters only when it is long. */
export function shownId(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? 'no id' : `${typeof value} ${JSON.stringify(value)?.slice(0, SHOWN) ?? ''}`;
  if (value.length <= SHOWN) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, SHOWN)).slice(0, -1)}…" (${value.length} characters)`;
}
