import type { SourceConfig } from '../config/types.js';
import type { PassRecord, PassResultLabel, TriggerReason } from '../operations/pass-record.js';
import type { WindowState } from '../operations/sync-windows.js';
import type { PoolHealth } from '../operations/pool-health.js';

export type { PassResultLabel } from '../operations/pass-record.js';

/** What `GET /status` shows for one source. Times are ISO 8601; revisions are git commits (null for a local folder). */
export interface SourceStatus {
  name: string;
  organization: string;
  kind: 'path' | 'git';
  running: boolean;
  lastTrigger: TriggerReason | null;
  lastAttemptedRevision: string | null;
  lastAppliedRevision: string | null;
  result: PassResultLabel | null;
  error: string | null;
  /** Changes the last pass planned (drift found), or null before the first pass got that far. */
  driftCount: number | null;
  lastRunAt: string | null;
  /** When a pass last succeeded: the plan was applied in full, or there was nothing to do. */
  lastSuccessAt: string | null;
  nextRunAt: string | null;
  /** false when the last pass could not fetch the git source; null for a local folder or before the first pass. */
  gitReached: boolean | null;
  /** false when the last pass could not reach the API; null when it made no API call. */
  apiReached: boolean | null;
  /**
   * Resources another writer keeps changing back (the same change had to be applied again two passes in a row):
   * most likely a second daemon syncing this organization from another repo. Empty when none.
   */
  fighting: string[];
  /** The last finished pass: its revision, times, changes with their outcomes, warnings and errors. */
  lastPass: PassRecord | null;
  /** Suspended (`suspend`): no trigger but `sync` starts a pass. */
  suspended: boolean;
  /** When it was suspended, or null. */
  suspendedAt: string | null;
  /** The source's sync windows now, or null when it has none. */
  syncWindow: WindowState | null;
  /** Changes the last pass held back because a sync window was closed, or null. */
  waitingForWindow: number | null;
  /** The organization's agent pools as the last successful pass found them; absent before. */
  pools?: PoolHealth[];
  /** The last passes, newest first, kept across restarts; only with `/status?history=1`. */
  history?: PassRecord[];
}

export interface Readiness {
  ready: boolean;
  reasons: string[];
}

export function initialStatus(source: SourceConfig): SourceStatus {
  return {
    name: source.name,
    organization: source.organization,
    kind: source.git === null ? 'path' : 'git',
    running: false,
    lastTrigger: null,
    lastAttemptedRevision: null,
    lastAppliedRevision: null,
    result: null,
    error: null,
    driftCount: null,
    lastRunAt: null,
    lastSuccessAt: null,
    nextRunAt: null,
    gitReached: null,
    apiReached: null,
    fighting: [],
    lastPass: null,
    suspended: false,
    suspendedAt: null,
    syncWindow: null,
    waitingForWindow: null,
  };
}

/** Ready when every source has finished a pass, and the last one reached git (if any) and the API, which no request since failed to connect to. */
export function readiness(statuses: readonly SourceStatus[]): Readiness {
  const reasons: string[] = [];
  for (const s of statuses) {
    if (s.gitReached === false) reasons.push(`source ${s.name}: the last pass could not fetch the git repository: ${s.error ?? 'unknown error'}`);
    // Said at the first request that could not connect, before any pass has finished (daemon/api-unreachable.ts).
    else if (s.apiReached === false) reasons.push(`source ${s.name}: the API cannot be reached: ${s.error ?? 'unknown error'}`);
    else if (s.lastRunAt === null) reasons.push(`source ${s.name}: no pass has finished yet`);
  }
  return { ready: reasons.length === 0, reasons };
}
