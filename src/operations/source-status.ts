import type { SourceConfig } from '../config/types.js';
import type { RolloutStatus } from '../plan/evidence.js';
import type { PassRecord, PassResultLabel, TriggerReason } from './pass-record.js';
import type { PoolHealth } from './pool-health.js';
import type { SetVersionStatus } from './policy-set-versions.js';
import type { WindowState } from './sync-windows.js';

/**
 * The state of one source as its passes leave it, changed by the daemon's runner and its passes (daemon/source-runner.ts,
 * source-pass.ts), and what `GET /status` shows of it (server/status.ts). Times are ISO 8601; revisions are git commits
 * (null for a local folder).
 */
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
   * Resources another writer keeps changing back (a change this source applied was undone at least twice within the
   * last hour: fight-detector.ts): most likely a second daemon syncing this organization from another repo. Empty when none.
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
  /** Rollouts under way as the last pass that planned left them (held, or promoted by it); absent before, or none. */
  rollouts?: RolloutStatus[];
  /** The organization's agent pools as the last successful pass found them; absent before. */
  pools?: PoolHealth[];
  /** The policy sets the source declares, each with its version, that version's state and whether it is enforced, as the last pass that made a plan left them; absent before. */
  policySets?: SetVersionStatus[];
  /** The last passes, newest first, kept across restarts; only with `/status?history=1`. */
  history?: PassRecord[];
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
