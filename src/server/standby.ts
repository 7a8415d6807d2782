import type { Elector } from '../leader/index.js';
import type { Readiness } from './status.js';

/** What `/status` says of leader election (absent without it). */
export interface LeadershipStatus {
  /** This replica's name in the lease. */
  identity: string;
  /** Whether this replica holds the lease and syncs. */
  leading: boolean;
  /** Who holds the lease, as last read; null when nobody does. */
  leader: string | null;
  /** Whether the last exchange with the store succeeded; null before the first. */
  storeReached: boolean | null;
}

export function leadershipStatus(election: Elector | null): LeadershipStatus | null {
  if (election === null) return null;
  return { identity: election.identity, leading: election.leading, leader: election.leader, storeReached: election.storeReached };
}

/** A standby is ready while it can read the lease: it is ready to take over. */
export function standbyReadiness(election: Elector | null): Readiness {
  if (election?.storeReached === true) return { ready: true, reasons: [] };
  return { ready: false, reasons: ['standby: the leader-election store has not answered'] };
}

/** The answer of a standby to a webhook or a control command: 503, naming the leader. */
export function standbyAnswer(election: Elector | null): { status: number; body: { error: string; leader: string | null } } {
  const leader = election?.leader ?? null;
  const who = leader === null ? 'no replica holds the lease right now; try again shortly' : `send it to the leader, ${leader}`;
  return { status: 503, body: { error: `this replica stands by and does not sync: ${who}`, leader } };
}
