import type { DaemonStatus, LeadershipRow, PassSummary, StatusRow } from './control-output.js';

/**
 * The daemon's answers, checked before anything reads them: a reply of another shape (another program on the port,
 * another version of the daemon) is a message naming the first field that is wrong, never a crash.
 * Each reader returns the value, or a string saying where it is wrong.
 */
type Check = readonly [test: (value: unknown) => boolean, what: string, optional?: 'optional'];

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const STRING: Check = [(v) => typeof v === 'string', 'a string'];
const STRING_OR_NULL: Check = [(v) => v === null || typeof v === 'string', 'a string or null'];
const NUMBER_OR_NULL: Check = [(v) => v === null || typeof v === 'number', 'a number or null'];
const BOOLEAN: Check = [(v) => typeof v === 'boolean', 'true or false'];

const STATUS_ROW: Record<string, Check> = {
  name: STRING,
  lastAttemptedRevision: STRING_OR_NULL,
  lastAppliedRevision: STRING_OR_NULL,
  result: STRING_OR_NULL,
  driftCount: NUMBER_OR_NULL,
  nextRunAt: STRING_OR_NULL,
  running: BOOLEAN,
  suspended: [BOOLEAN[0], BOOLEAN[1], 'optional'],
  waitingForWindow: [NUMBER_OR_NULL[0], NUMBER_OR_NULL[1], 'optional'],
};

const BOOLEAN_OR_NULL: Check = [(v) => v === null || typeof v === 'boolean', 'true, false or null'];

const LEADERSHIP: Record<string, Check> = {
  identity: STRING,
  leading: BOOLEAN,
  leader: STRING_OR_NULL,
  storeReached: BOOLEAN_OR_NULL,
};

const PASS: Record<string, Check> = {
  result: STRING,
  revision: STRING_OR_NULL,
  error: STRING_OR_NULL,
  drift: NUMBER_OR_NULL,
  changes: [(v) => Array.isArray(v) && v.every((c) => isObject(c) && typeof c.outcome === 'string'), 'a list of changes, each with an outcome'],
  changesOmitted: [(v) => typeof v === 'number', 'a number'],
};

/** Where `value` is not of `shape`, or null. */
function problemOf(value: unknown, at: string, shape: Record<string, Check>): string | null {
  if (!isObject(value)) return `${at} is not an object`;
  for (const [key, [test, what, optional]] of Object.entries(shape)) {
    if (optional === 'optional' && value[key] === undefined) continue;
    if (!test(value[key])) return `${at}.${key} is not ${what}`;
  }
  return null;
}

/** `GET /status`: `{ leadership?: LeadershipRow, sources: StatusRow[] }` (leadership only under leader election). */
export function readStatus(body: unknown): DaemonStatus | string {
  if (!isObject(body) || !Array.isArray(body.sources)) return 'sources is not a list';
  for (const [index, entry] of body.sources.entries()) {
    const problem = problemOf(entry, `sources[${index}]`, STATUS_ROW);
    if (problem !== null) return problem;
  }
  if (body.leadership !== undefined) {
    const problem = problemOf(body.leadership, 'leadership', LEADERSHIP);
    if (problem !== null) return problem;
  }
  return { leadership: (body.leadership as LeadershipRow | undefined) ?? null, sources: body.sources as StatusRow[] };
}

/** `POST /sources/<name>/sync?wait=1`: `{ pass: ... }`, the pass null when the daemon stopped before it ended. */
export function readSyncPass(body: unknown): PassSummary['pass'] | string {
  if (!isObject(body) || !('pass' in body)) return 'pass is missing';
  if (body.pass === null) return null;
  return problemOf(body.pass, 'pass', PASS) ?? (body.pass as PassSummary['pass']);
}
