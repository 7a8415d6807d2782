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
  /** What the holder syncs (`syncFingerprint`): replicas of one deployment share it. Absent in older records. */
  fingerprint?: string;
  /** Where the holder takes webhook deliveries handed over by a standby (`http://10.0.0.5:9090`). Absent: nowhere. */
  address?: string;
}

/** The bounds of `leaseDurationMs`, in the config and in a record read: outside them, a record is a foreign holder's. */
export { LEASE_DURATION_BOUNDS } from '../config/leader-election-checks.js';

/** The largest answer a store's server may give: a record or a Lease is about 1 KB. */
export const MAX_STORE_ANSWER_BYTES = 1024 * 1024;

/** The longest fingerprint or address kept from a record. */
const MAX_FIELD_LENGTH = 512;

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
    ...optionalFields(r),
  };
}

/** The record's fingerprint and address, when they are short strings. */
export function optionalFields(r: { fingerprint?: unknown; address?: unknown }): Pick<LeaderRecord, 'fingerprint' | 'address'> {
  const keep = (value: unknown) => typeof value === 'string' && value !== '' && value.length <= MAX_FIELD_LENGTH;
  return { ...(keep(r.fingerprint) ? { fingerprint: r.fingerprint as string } : {}), ...(keep(r.address) ? { address: r.address as string } : {}) };
}

/** An answer's body as text, read only up to MAX_STORE_ANSWER_BYTES: a larger one is refused, not read further. */
export async function readStoreAnswer(body: AsyncIterable<Uint8Array>, where: string): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > MAX_STORE_ANSWER_BYTES) {
      throw new LeaseStoreError(`${where} answered more than ${MAX_STORE_ANSWER_BYTES / 1024 / 1024} MiB, more than a leader record can be; not read further`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
