import { keyLabel } from '../yaml/index.js';
import type { ConfigCheckProblem } from './types.js';
import { durationMs } from './duration.js';
import { LEADER_ELECTION_DEFAULTS, type RawLeaderElection } from './to-config.js';

/** The bounds of a lease duration, in the config and in a record read (a record outside them is a foreign holder's). */
export const LEASE_DURATION_BOUNDS = { minMs: 1_000, maxMs: 60 * 60_000 } as const;

/** The shortest retry period: a store asked more often than every 100 ms is asked too often. */
export const MIN_RETRY_PERIOD_MS = 100;

/**
 * What the schema cannot say of `leader-election:` (client-go checks the same): etcd needs its endpoints, the lease
 * lasts at least a second, the leader gives up (renew-deadline) before a candidate may take over (lease-duration),
 * and it tries to renew (retry-period) more than once before it gives up.
 */
export function leaderElectionProblems(value: unknown): ConfigCheckProblem[] {
  if (typeof value !== 'object' || value === null) return [];
  const raw = value as Partial<RawLeaderElection>;
  const at = (key: string) => ['leader-election', key];
  const problems: ConfigCheckProblem[] = [];
  if (raw.store === 'etcd' && (raw.endpoints ?? []).length === 0) {
    problems.push({ path: ['leader-election'], message: `${keyLabel(['leader-election'])} with store "etcd" needs "endpoints": etcd's client URLs, e.g. [http://127.0.0.1:2379]` });
  }
  if (raw.store === 'kubernetes' && raw.endpoints !== undefined) {
    problems.push({ path: at('endpoints'), message: `${keyLabel(at('endpoints'))} is for store "etcd"; the kubernetes store talks to the pod's own API server: remove it` });
  }
  (Array.isArray(raw.endpoints) ? raw.endpoints : []).forEach((endpoint: unknown, index) => {
    // Not shown: what comes before the @ is a password.
    if (typeof endpoint === 'string' && /^https?:\/\/[^/]*@/.test(endpoint)) {
      problems.push({ path: ['leader-election', 'endpoints', index], message: `${keyLabel(['leader-election', 'endpoints', index])} carries credentials (user:password@), which the etcd store does not send: remove them and protect etcd by its network` });
    }
  });
  const d = LEADER_ELECTION_DEFAULTS;
  const lease = durationMs(raw['lease-duration'] ?? d.leaseDuration);
  const renew = durationMs(raw['renew-deadline'] ?? d.renewDeadline);
  const retry = durationMs(raw['retry-period'] ?? d.retryPeriod);
  if ([lease, renew, retry].some(Number.isNaN)) return problems; // the schema has said why
  if (lease < LEASE_DURATION_BOUNDS.minMs) problems.push({ path: at('lease-duration'), message: `${keyLabel(at('lease-duration'))} "${String(raw['lease-duration'])}" is shorter than 1s` });
  if (lease > LEASE_DURATION_BOUNDS.maxMs) {
    problems.push({ path: at('lease-duration'), message: `${keyLabel(at('lease-duration'))} "${String(raw['lease-duration'])}" is longer than ${LEASE_DURATION_BOUNDS.maxMs / 60_000}m: a standby would wait that long after a leader failed` });
  }
  if (renew >= lease) {
    problems.push({
      path: at('renew-deadline'),
      message: `${keyLabel(at('renew-deadline'))} (${renew / 1000}s) must be shorter than lease-duration (${lease / 1000}s): the leader must stop before a standby may take over`,
    });
  }
  if (retry * 1.2 >= renew) {
    problems.push({
      path: at('retry-period'),
      message: `${keyLabel(at('retry-period'))} (${retry / 1000}s) must be well under renew-deadline (${renew / 1000}s), so that a failed renewal is tried again before the deadline`,
    });
  }
  if (retry < MIN_RETRY_PERIOD_MS) problems.push({ path: at('retry-period'), message: `${keyLabel(at('retry-period'))} "${String(raw['retry-period'])}" is shorter than ${MIN_RETRY_PERIOD_MS}ms` });
  return problems;
}
