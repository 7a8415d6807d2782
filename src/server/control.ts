import type { IncomingMessage } from 'node:http';
import type { PassRecord } from '../operations/pass-record.js';
import { closest } from '../suggest.js';
import type { AuthVerdict } from './auth-gate.js';
import { CONTROL_TOKEN_ENV } from './endpoint-secrets.js';
import { crossSiteProblem } from './request-origin.js';
import { errorMessage } from '../errors.js';
import { decode } from '../redact.js';

export type ControlAction = 'sync' | 'suspend' | 'resume';

/** What the control endpoints act on: the daemon's sources, by name. */
export interface ControlTarget {
  /** The daemon's sources, in the config's order. */
  names(): string[];
  has(source: string): boolean;
  suspended(source: string): boolean;
  /** Starts a pass; resolves with its record once it ended when `wait`, else at once with null. */
  sync(source: string, options: { wait: boolean; overrideWindow: boolean }): Promise<PassRecord | null | 'stopped'>;
  suspend(source: string): Promise<void>;
  resume(source: string): Promise<void>;
}

export interface ControlAnswer {
  status: number;
  body: unknown;
}

const ROUTE = /^\/sources\/([^/]+)\/(sync|suspend|resume)$/;

/** Whether `path` is a control endpoint. */
export function isControlPath(path: string): boolean {
  return path.startsWith('/sources/');
}

/**
 * `POST /sources/<name>/sync|suspend|resume`, guarded by the bearer token in CONTROL_TOKEN: without a token set,
 * they answer 403, never open. `authorize` checks `Authorization: Bearer` and nothing else: a browser re-sends Basic
 * credentials and cookies on its own, a bearer token only when a script of the daemon's own origin sets it. A request
 * a browser says comes from another site is refused before that. `sync?wait=1` answers once the pass it started
 * ended, with that pass's record.
 */
export async function handleControl(
  request: IncomingMessage,
  url: URL,
  authorize: ((request: IncomingMessage) => AuthVerdict) | null,
  target: ControlTarget,
  /** Leader election: a standby's answer once the request is authenticated (standby.ts); null to go on. */
  standby: () => ControlAnswer | null = () => null,
): Promise<ControlAnswer> {
  const match = ROUTE.exec(url.pathname);
  if (match === null) return { status: 404, body: { error: `no route ${url.pathname}; try POST /sources/<name>/sync, /suspend or /resume` } };
  if (request.method !== 'POST') return { status: 405, body: { error: 'use POST' } };
  if (authorize === null) return { status: 403, body: { error: `the control endpoints are disabled: set ${CONTROL_TOKEN_ENV} on the daemon to enable them` } };
  const crossSite = crossSiteProblem(request.headers);
  if (crossSite !== null) return { status: 403, body: { error: `refused a request from another site (${crossSite}): send control requests from a client, not a web page` } };
  const verdict = authorize(request);
  if (verdict === 'throttled') return { status: 429, body: { error: 'too many failed attempts from this address: wait, then send the right token' } };
  if (verdict === 'refused') return { status: 401, body: { error: 'unauthorized: send the control token as Authorization: Bearer <token>' } };
  const aside = standby();
  if (aside !== null) return aside;
  const source = decode(match[1] ?? '');
  const action = match[2] as ControlAction;
  if (!target.has(source)) return { status: 404, body: { error: unknownSource(source, target.names()), sources: target.names() } };
  switch (action) {
    case 'suspend':
    case 'resume': {
      try {
        await (action === 'suspend' ? target.suspend(source) : target.resume(source));
      } catch (error) {
        // Not a success: the record on disk does not say what was asked, so a restart would not keep it.
        return { status: 500, body: { source, suspended: target.suspended(source), error: errorMessage(error) } };
      }
      return { status: 200, body: { source, suspended: action === 'suspend' } };
    }
    case 'sync': {
      if (target.suspended(source)) return { status: 409, body: { error: `source "${source}" is suspended; resume it first` } };
      const wait = flag(url, 'wait');
      const pass = await target.sync(source, { wait, overrideWindow: flag(url, 'override-window') });
      if (pass === 'stopped') return { status: 503, body: { error: 'the daemon stopped before the pass ended' } };
      return wait ? { status: 200, body: { source, pass } } : { status: 202, body: { source, accepted: true } };
    }
  }
}

/** Names the sources there are, and the one most likely meant. */
function unknownSource(source: string, names: readonly string[]): string {
  const meant = closest(source, names);
  const known = names.length === 0 ? 'the daemon has no sources' : `the daemon's sources: ${names.map((name) => `"${name}"`).join(', ')}`;
  return `no source named "${source}"${meant === null ? '' : `; did you mean "${meant}"?`} (${known})`;
}

function flag(url: URL, name: string): boolean {
  return ['1', 'true'].includes(url.searchParams.get(name) ?? '');
}
