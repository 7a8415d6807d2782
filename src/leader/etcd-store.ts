import { Agent, request } from 'undici';
import { errorMessage, LeaseStoreError } from '../errors.js';
import { parseRecord, readStoreAnswer, type LeaderRecord, type LeaseStore, type VersionedRecord, type WriteResult } from './store.js';

/** Where the daemon's leases live in etcd's key space. */
export const ETCD_KEY_PREFIX = '/policy-pool-sync/leases/';

export interface EtcdStoreOptions {
  /** How long one endpoint may take to answer when there are several, before the next is tried. @default the whole round */
  endpointTimeoutMs?: number;
}

/**
 * The lease as one etcd key, through etcd's v3 JSON gateway (`/v3/kv/range`, `/v3/kv/txn`): a write is a transaction
 * whose compare is the key's `mod_revision` (or its absence for a create), the check the Kubernetes API server runs
 * under a Lease's `resourceVersion`. Keys and values travel base64-encoded; 64-bit numbers as strings.
 */
export function etcdLeaseStore(endpoints: readonly string[], leaseName: string, options: EtcdStoreOptions = {}): LeaseStore {
  const key = `${ETCD_KEY_PREFIX}${leaseName}`;
  const key64 = b64(key);
  let closed: Promise<void> | null = null;
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 2 });
  /** The endpoint that answered last is tried first. */
  let preferred = 0;

  async function call(path: string, body: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const failures: string[] = [];
    const first = preferred;
    for (let i = 0; i < endpoints.length; i += 1) {
      const index = (first + i) % endpoints.length;
      const endpoint = (endpoints[index] ?? '').replace(/\/+$/, '');
      // Each endpoint its share of the round: one that accepts and never answers leaves time for the next.
      const share = endpoints.length > 1 && options.endpointTimeoutMs !== undefined ? AbortSignal.timeout(options.endpointTimeoutMs) : null;
      try {
        const res = await request(`${endpoint}${path}`, {
          method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' }, dispatcher: agent, signal: share === null ? signal : AbortSignal.any([signal, share]),
        });
        const text = await readStoreAnswer(res.body, `etcd ${endpoint}`);
        if (res.statusCode !== 200) {
          failures.push(`${endpoint}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
          continue;
        }
        preferred = index;
        return JSON.parse(text) as Record<string, unknown>;
      } catch (error) {
        if (signal.aborted) throw new LeaseStoreError(`etcd ${endpoint} did not answer in time (leader-election.endpoints)${failures.length === 0 ? '' : `; before it: ${failures.join('; ')}`}`, { cause: error });
        const why = share?.aborted === true ? `no answer within ${(options.endpointTimeoutMs ?? 0) / 1000} s` : errorMessage(error);
        failures.push(`${endpoint}: ${why}`);
        // The next call starts with the next endpoint.
        if (index === preferred) preferred = (index + 1) % endpoints.length;
      }
    }
    throw new LeaseStoreError(`cannot reach etcd (leader-election.endpoints): ${failures.join('; ')}`);
  }

  async function write(record: LeaderRecord, compare: Record<string, string>, signal: AbortSignal): Promise<WriteResult> {
    const answer = await call('/v3/kv/txn', {
      compare: [{ key: key64, result: 'EQUAL', ...compare }],
      success: [{ request_put: { key: key64, value: b64(JSON.stringify(record)) } }],
    }, signal);
    if (answer.succeeded !== true) return 'conflict';
    const revision = (answer.header as { revision?: unknown } | undefined)?.revision;
    if (typeof revision !== 'string') throw new LeaseStoreError('etcd answered a transaction without header.revision');
    return { version: revision };
  }

  return {
    description: `etcd key ${key}`,
    async get(signal): Promise<VersionedRecord | null> {
      const answer = await call('/v3/kv/range', { key: key64 }, signal);
      const kv = (answer.kvs as { value?: string; mod_revision?: string }[] | undefined)?.[0];
      if (kv === undefined) return null;
      if (typeof kv.mod_revision !== 'string') throw new LeaseStoreError('etcd answered a range without mod_revision');
      return { record: parseRecord(Buffer.from(kv.value ?? '', 'base64').toString('utf8'), `etcd key ${key}`), version: kv.mod_revision };
    },
    create: (record, signal) => write(record, { target: 'CREATE', create_revision: '0' }, signal),
    update: (record, version, signal) => write(record, { target: 'MOD', mod_revision: version }, signal),
    close: () => (closed ??= agent.close()),
  };
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}
