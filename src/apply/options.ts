import type { Clock } from '../api/clock.js';
import { systemClock } from '../api/clock.js';
import type { PolicyApi } from '../api/types.js';
import type { ParameterAllowance } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { Ownership } from '../model.js';
import type { ChangeResult } from '../plan/types.js';
import type { TokenSecrets } from './token-secret.js';

/** The pass's clock as the apply reads it: its time and its waits (a policy set version's poll). */
export type PassClock = Pick<Clock, 'now' | 'sleep'>;

export interface ApplyOptions {
  api: PolicyApi;
  organization: string;
  source: string;
  ownership: Ownership;
  logger: Logger;
  /** Told of each upload whose answer carries the policy's new `updated-at`, with the code's digest (the code cache learns it). */
  onUploaded?: (policyId: string, updatedAt: string, codeDigest: string) => void;
  /** Changes under way at once. @default 8 */
  concurrency?: number;
  /**
   * Once aborted, no further change starts; those under way finish (a create with its upload), but a wait for the
   * service (a policy set version's poll) ends at once.
   */
  stop?: AbortSignal;
  /** The pass's clock: a policy set version's poll waits and times out on it. @default the system clock */
  clock?: PassClock;
  /**
   * The level of the record each applied change logs: `debug` where a person reads the plan and the summary after it
   * (a terminal), `info` for JSON logs. A failed change is always an error record. @default 'info'
   */
  appliedLogLevel?: 'info' | 'debug';
  /** Called as each change reaches its outcome (for progress reports). */
  onResult?: (result: ChangeResult) => void;
  /** How long a policy set's new version may take to become ready. @default 10 minutes (policy-set-version.ts) */
  setVersionTimeoutMs?: number;
  /** Called as a wave (waves.ts) with changes to run starts, with its name and how many changes it runs. */
  onWave?: (wave: string, changes: number) => void;
  /** Where a sensitive parameter's `{env: NAME}` is read again for its upload. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** What a sensitive parameter may read again for its upload: the source's allowance, as when the repo was read. @default nothing */
  parameters?: ParameterAllowance;
  /** The folder declared agent tokens are delivered to: the source's, as when the repo was read (never the plan's). @default none */
  tokenDir?: string;
  /** The Secrets declared agent tokens may be delivered to (`tokens.secrets`), and the writer that reaches them. @default none */
  tokenSecrets?: TokenSecrets;
}

export function passClock(options: ApplyOptions): PassClock {
  return options.clock ?? systemClock();
}
