/**
 * A compare-and-swap lease store in memory, for the election's algorithm on a virtual clock: the same contract as
 * the etcd and Kubernetes stores (test/leader-etcd-store.test.ts holds those to it on a real etcd). `hold` makes the
 * next answers wait until the test releases them, as a slow store would.
 */
import type { LeaderRecord, LeaseStore, VersionedRecord, WriteResult } from '../../src/leader/index.js';

export interface MemoryLeaseStore extends LeaseStore {
  /** The record as stored, or null. */
  record(): LeaderRecord | null;
  /** Deletes the record, as `etcdctl del` or an operator cleaning keys would. */
  remove(): void;
  /** Writes a record as another holder would. */
  put(record: LeaderRecord): void;
  /** How many exchanges so far. */
  readonly exchanges: number;
  /** The kinds of exchange asked for so far. */
  kinds: Set<'get' | 'create' | 'update'>;
  /** Until the promise resolves, every answer waits for it. */
  hold(until: Promise<void> | null): void;
  /** The next `count` exchanges fail, as a store that cannot be reached does. */
  fail(count: number): void;
}

export function memoryLeaseStore(): MemoryLeaseStore {
  let stored: VersionedRecord | null = null;
  let revision = 0;
  let gate: Promise<void> | null = null;
  const kinds: MemoryLeaseStore['kinds'] = new Set();
  let exchanges = 0;
  let failing = 0;
  const answer = async <T>(call: 'get' | 'create' | 'update', work: () => T, signal: AbortSignal): Promise<T> => {
    kinds.add(call);
    exchanges += 1;
    if (failing > 0) {
      failing -= 1;
      throw new Error('the store cannot be reached');
    }
    if (gate !== null) await Promise.race([gate, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }))]);
    signal.throwIfAborted();
    return work();
  };
  const write = (record: LeaderRecord): WriteResult => {
    revision += 1;
    stored = { record: structuredClone(record), version: String(revision) };
    return { version: stored.version };
  };
  return {
    description: 'memory',
    kinds,
    get exchanges() {
      return exchanges;
    },
    get: (signal) => answer('get', () => (stored === null ? null : structuredClone(stored)), signal),
    create: (record, signal) => answer('create', () => (stored === null ? write(record) : 'conflict'), signal),
    update: (record, version, signal) => answer('update', () => (stored?.version === version ? write(record) : 'conflict'), signal),
    close: () => Promise.resolve(),
    record: () => (stored === null ? null : structuredClone(stored.record)),
    remove() {
      stored = null;
    },
    put(record) {
      write(record);
    },
    hold(until) {
      gate = until;
    },
    fail(count) {
      failing = count;
    },
  };
}
