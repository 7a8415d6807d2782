/**
 * The ids the API hands out, by the prefix of each resource: an id read from an answer goes into a URL only when it is
 * its prefix followed by a bounded run of letters, digits, `-` and `_`. Anything else (a path, a query, a `..`, an
 * overlong text) is refused before a request is built, naming what it should have been.
 */

export type IdKind = 'policy' | 'policy-set' | 'policy-set-version' | 'parameter' | 'workspace' | 'project' | 'agent-pool' | 'agent';

const PREFIX: Readonly<Record<IdKind, string>> = {
  policy: 'pol',
  'policy-set': 'polset',
  'policy-set-version': 'polsetver',
  parameter: 'var',
  workspace: 'ws',
  project: 'prj',
  'agent-pool': 'apool',
  agent: 'agent',
};

/** The most characters after the prefix: the service's ids carry 16. */
export const MAX_ID_SUFFIX = 64;

const PATTERNS = Object.fromEntries(
  Object.entries(PREFIX).map(([kind, prefix]) => [kind, new RegExp(`^${prefix}-[A-Za-z0-9_-]{1,${MAX_ID_SUFFIX}}$`)]),
) as Record<IdKind, RegExp>;

export function isId(kind: IdKind, value: unknown): value is string {
  return typeof value === 'string' && PATTERNS[kind].test(value);
}

/** What an id of `kind` looks like, for messages. */
export function idShape(kind: IdKind): string {
  return `${kind} id (${PREFIX[kind]}- followed by at most ${MAX_ID_SUFFIX} letters, digits, - or _)`;
}

/** `value` when it is an id of `kind`; throws a TypeError naming what it should be otherwise (a malformed answer). */
export function checkedId(kind: IdKind, value: unknown): string {
  if (isId(kind, value)) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value) : String(value);
  throw new TypeError(`${shown} is not a ${idShape(kind)}`);
}
