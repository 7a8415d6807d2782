import { LeaseStoreError } from '../errors.js';

/**
 * The record the replicas hold in turn, and the compare-and-swap store it lives in. The shape is client-go's
 * `LeaderElectionRecord` (tools/leaderelection/resourcelock), so the algorithm reads the same over any store.
 */
export interface LeaderRecord {
  /** Who holds the lease; empty once released. */
  holderIdentity: string;
  /** How long a candidate waits after it last saw the record change before it may take it (the holder's setting). */
  leaseDurationMs: number;
  /** Wall-clock times, for people reading the record; the algorithm never compares them across machines. */
  acquireTime: string;
  renewTime: string;
  /** How many times the lease changed hands. */
  leaderTransitions: number;
}

/** A record as read, with the store's version of it (etcd's `mod_revision`, a Lease's `resourceVersion`). */
export interface VersionedRecord {
  record: LeaderRecord;
  version: string;
}

/** The result of a conditional write: the new version, or `conflict` when another write came first. */
export type WriteResult = { version: string } | 'conflict';

/** A record store with compare-and-swap: what leader election needs of etcd or the Kubernetes API. */
export interface LeaseStore {
  /** What and where, for logs: `etcd key /policy-pool-sync/leases/NAME`. */
  readonly description: string;
  /** The record and its version, or null when there is none yet. */
  get(signal: AbortSignal): Promise<VersionedRecord | null>;
  /** Writes the record only if there is none. */
  create(record: LeaderRecord, signal: AbortSignal): Promise<WriteResult>;
  /** Writes the record only if its version is still `version`. */
  update(record: LeaderRecord, version: string, signal: AbortSignal): Promise<WriteResult>;
  close(): Promise<void>;
}

/** Reads a record written by `recordJson`; throws LeaseStoreError on anything else. */
export function parseRecord(text: string, where: string): LeaderRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LeaseStoreError(`${where} does not hold a leader record (not JSON): delete it, or choose another lease-name`);
  }
  const r = value as Partial<LeaderRecord> | null;
  if (r === null || typeof r !== 'object' || typeof r.holderIdentity !== 'string' || typeof r.leaseDurationMs !== 'number' || typeof r.leaderTransitions !== 'number') {
    throw new LeaseStoreError(`${where} does not hold a leader record: delete it, or choose another lease-name`);
  }
  return {
    holderIdentity: r.holderIdentity,
    leaseDurationMs: r.leaseDurationMs,
    acquireTime: String(r.acquireTime ?? ''),
    renewTime: String(r.renewTime ?? ''),
    leaderTransitions: r.leaderTransitions,
  };
}
