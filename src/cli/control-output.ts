import { count } from '../plural.js';
import { printable } from '../output/printable.js';

/** What the control commands read of a source's `/status` entry. */
export interface StatusRow {
  name: string;
  lastAttemptedRevision: string | null;
  lastAppliedRevision: string | null;
  result: string | null;
  driftCount: number | null;
  nextRunAt: string | null;
  suspended?: boolean;
  running: boolean;
  waitingForWindow?: number | null;
}

/** What `/status` says of leader election, when the daemon has a `leader-election` section. */
export interface LeadershipRow {
  /** The replica's name in the lease. */
  identity: string;
  leading: boolean;
  /** Who holds the lease, as the replica last read it; null when nobody does. */
  leader: string | null;
  /** Whether the replica's last exchange with the lease store succeeded; null before the first. */
  storeReached: boolean | null;
}

/** `GET /status`: the sources, and the leadership when leader election is configured (null without it). */
export interface DaemonStatus {
  leadership: LeadershipRow | null;
  sources: StatusRow[];
}

/** The pass a `sync` started, as the daemon answered. */
export interface PassSummary {
  source: string;
  pass: {
    trigger: string; startedAt: string; result: string; revision: string | null; error: string | null; drift: number | null;
    changes: { outcome: string }[]; changesOmitted: number; window?: 'closed' | 'overridden';
  } | null;
}

/**
 * One line on the replica that answered, under leader election: whether it leads, and who does.
 * `leader: this replica (pod-a) holds the lease and syncs` or `standby: this replica (pod-b) does not sync; the leader is pod-a`.
 */
export function renderLeadership(leadership: LeadershipRow): string {
  const store = leadership.storeReached === false ? ' (its last exchange with the lease store failed)' : leadership.storeReached === null ? ' (the lease store has not answered yet)' : '';
  // The identities come from the lease store, whoever wrote it: shown printable.
  const identity = printable(leadership.identity);
  if (leadership.leading) return `leader: this replica (${identity}) holds the lease and syncs${store}\n`;
  const leader = leadership.leader === null ? 'no replica holds the lease right now' : `the leader is ${printable(leadership.leader)}`;
  return `standby: this replica (${identity}) does not sync; ${leader}${store}\n`;
}

/** The leadership line (under leader election), then a table a person reads: source, revision, last result, drift, next run, suspended. */
export function renderStatus(status: DaemonStatus): string {
  return `${status.leadership === null ? '' : renderLeadership(status.leadership)}${renderStatusTable(status.sources)}`;
}

/** A table a person reads: source, revision, last result, drift, next run, suspended. */
export function renderStatusTable(rows: readonly StatusRow[]): string {
  const table = [
    ['SOURCE', 'REVISION', 'RESULT', 'DRIFT', 'NEXT RUN', 'SUSPENDED'],
    ...rows.map((r) => [
      r.name,
      (r.lastAttemptedRevision ?? r.lastAppliedRevision)?.slice(0, 12) ?? '-',
      r.running ? 'running' : (r.result ?? 'never run'),
      r.driftCount === null ? '-' : String(r.driftCount) + (r.waitingForWindow != null ? ' (waiting for the window)' : ''),
      r.nextRunAt ?? '-',
      r.suspended === true ? 'yes' : 'no',
    ]),
  ].map((row) => row.map(printable));
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  return table.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n') + '\n';
}

export function renderSyncResult(passes: readonly PassSummary[]): string {
  return passes
    .map(({ source, pass }) => {
      if (pass === null) return `source "${printable(source)}": the daemon stopped before the pass ended\n`;
      const applied = appliedCount(pass);
      const revision = pass.revision === null ? '' : ` at ${pass.revision.slice(0, 12)}`;
      const what = pass.result === 'success' ? `${count(applied, 'change')} applied` : (pass.error ?? 'failed');
      const held = pass.window === 'closed' ? `; ${pass.drift ?? 0} waiting for the sync window` : pass.window === 'overridden' ? '; the sync window was overridden' : '';
      // The pass that ran: a sync asked for while another pass was queued runs as that pass (e.g. a webhook's).
      // Everything here is the daemon's answer, and its error the API's or git's words: one printable line.
      return `${printable(`source "${source}"${revision}: ${pass.result}, ${what}${held} (the ${pass.trigger} pass started ${pass.startedAt})`)}\n`;
    })
    .join('');
}

/** 1 when a pass failed (or did not end); with `detailed`, 2 when one applied changes; else 0. */
export function syncExitCode(passes: readonly PassSummary[], detailed: boolean): number {
  if (passes.some((p) => p.pass === null || p.pass.result !== 'success')) return 1;
  return detailed && passes.some((p) => appliedCount(p.pass!) > 0) ? 2 : 0;
}

function appliedCount(pass: NonNullable<PassSummary['pass']>): number {
  return pass.changes.filter((c) => c.outcome === 'applied').length;
}
