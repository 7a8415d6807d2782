import type { SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { CodeCache } from '../reconcile.js';
import type { TriggerReason } from './source-loop.js';

export interface DaemonPassRequest {
  source: SourceConfig;
  /** Folder holding the declared tree (the local path, or the checkout joined with `git.path`). */
  dir: string;
  /** The commit checked out, or null for a local folder. */
  revision: string | null;
  trigger: TriggerReason;
  /** Aborts when the pass exceeds `pass-timeout`. */
  signal: AbortSignal;
  /** Kept across the passes of one source. */
  codeCache: CodeCache;
  logger: Logger;
}

export interface DaemonPassReport {
  ok: boolean;
  /** Changes planned; null when the pass did not get as far as a plan. */
  driftCount: number | null;
  /** Problems of the pass (invalid repo, guards, failed actions), for /status. */
  errors: string[];
  /** Whether the API answered; null when the pass made no call. */
  apiReached: boolean | null;
}

/** One pass over one source; `reconcilePass(api)` is the real one, tests pass their own. */
export type DaemonPass = (request: DaemonPassRequest) => Promise<DaemonPassReport>;
