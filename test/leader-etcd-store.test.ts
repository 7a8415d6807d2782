/** The etcd store and the election over it, in-process, against a real etcd (test/helpers/etcd.ts). */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { test, type TestContext } from 'node:test';
import { createLogger } from '../src/logger.js';
import { createElector, ETCD_KEY_PREFIX, etcdLeaseStore, openLeaseStore, type Elector, type LeaderRecord } from '../src/leader/index.js';
import { startEtcd } from './helpers/etcd.js';
import { waitFor } from './helpers/wait.js';

const logger = createLogger({ level: 'silent' });
const record = (holder: string): LeaderRecord => ({ holderIdentity: holder, leaseDurationMs: 2000, acquireTime: 'a', renewTime: 'r', leaderTransitions: 0 });
const signal = () => AbortSignal.timeout(5_000);

test('the etcd store writes only on the version it was given: create when absent, update on mod_revision', async (t) => {
  const etcd = await startEtcd(t);
  const store = etcdLeaseStore([etcd.endpoint], 'contract');
  t.after(() => store.close());
  assert.equal(await store.get(signal()), null);
  const created = await store.create(record('a'), signal());
  assert.notEqual(created, 'conflict');
  assert.equal(await store.create(record('b'), signal()), 'conflict', 'a second create loses');
  const read = await store.get(signal());
  assert.deepEqual(read?.record, record('a'));
  assert.equal(read?.version, created === 'conflict' ? null : created.version);
  const updated = await store.update(record('b'), read?.version ?? '', signal());
  assert.notEqual(updated, 'conflict');
  assert.equal(await store.update(record('c'), read?.version ?? '', signal()), 'conflict', 'a write on a version already replaced loses');
  assert.equal((await store.get(signal()))?.record.holderIdentity, 'b');
});

test('an unreachable etcd is an error naming the endpoints; a second endpoint that answers is used', async (t) => {
  const etcd = await startEtcd(t);
  const dead = etcdLeaseStore(['http://127.0.0.1:9'], 'x');
  t.after(() => dead.close());
  await assert.rejects(dead.get(signal()), /cannot reach etcd \(leader-election.endpoints\): http:\/\/127.0.0.1:9/);
  const both = etcdLeaseStore(['http://127.0.0.1:9', etcd.endpoint], 'x');
  t.after(() => both.close());
  assert.equal(await both.get(signal()), null);
});

function elector(endpoint: string, identity: string, changes: boolean[]): Elector {
  const e = createElector({ store: etcdLeaseStore([endpoint], 'election'), identity, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250, logger });
  e.onLeadingChange((leading) => changes.push(leading));
  return e;
}

test('two candidates: one leads; once it releases the lease on stop, the other takes over without waiting for expiry', async (t) => {
  const etcd = await startEtcd(t);
  const changes = { a: [] as boolean[], b: [] as boolean[] };
  const a = elector(etcd.endpoint, 'a', changes.a);
  a.start();
  await waitFor('a to lead', () => (a.leading ? true : undefined));
  const b = elector(etcd.endpoint, 'b', changes.b);
  t.after(() => b.stop());
  b.start();
  await waitFor('b to read the lease', () => (b.leader === 'a' ? true : undefined));
  assert.equal(b.leading, false);
  assert.throws(() => b.fence(), /does not hold the lease/);
  a.fence();
  await a.stop();
  assert.equal(a.leading, false);
  // Released: no holder, so b takes it on its next try rather than after a lease duration.
  await waitFor('b to lead', () => (b.leading ? true : undefined));
  assert.deepEqual(changes, { a: [true], b: [true] });
});

test('expiry is judged by watching the record: an ancient renewTime is not expired until unchanged for the lease duration here', async (t) => {
  const etcd = await startEtcd(t);
  const seed = etcdLeaseStore([etcd.endpoint], 'observed');
  t.after(() => seed.close());
  await seed.create({ holderIdentity: 'gone', leaseDurationMs: 20_000, acquireTime: '2000-01-01T00:00:00.000Z', renewTime: '2000-01-01T00:00:00.000Z', leaderTransitions: 3 }, signal());
  let offset = 0;
  const b = createElector({ store: etcdLeaseStore([etcd.endpoint], 'observed'), identity: 'b', leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 100, logger, now: () => performance.now() + offset });
  t.after(() => b.stop());
  b.start();
  await waitFor('b to read the record', () => (b.leader === 'gone' ? true : undefined));
  await waitFor('two more rounds', async () => ((await seed.get(signal()))?.record.holderIdentity === 'gone' && b.storeReached === true ? true : undefined));
  assert.equal(b.leading, false, 'a wall-clock time from another machine says nothing');
  offset = 20_000; // the record's own lease duration, seen unchanged
  await waitFor('b to take the expired lease', () => (b.leading ? true : undefined));
  assert.equal((await seed.get(signal()))?.record.leaderTransitions, 4);
});

test('past the renew deadline the fence refuses at once, by the clock, before any timer has run', async (t) => {
  const etcd = await startEtcd(t);
  let offset = 0;
  const changes: boolean[] = [];
  const a = createElector({ store: etcdLeaseStore([etcd.endpoint], 'fence'), identity: 'a', leaseDurationMs: 20_000, renewDeadlineMs: 15_000, retryPeriodMs: 5_000, logger, now: () => performance.now() + offset });
  a.onLeadingChange((leading) => changes.push(leading));
  t.after(() => a.stop());
  a.start();
  await waitFor('a to lead', () => (a.leading ? true : undefined));
  a.fence();
  offset = 15_001; // as if the process had been stopped this long: its timers have not run
  assert.equal(a.leading, false);
  assert.throws(() => a.fence(), { name: 'NotLeaderError' });
  assert.deepEqual(changes, [true, false], 'the source loops were told at once');
});

/** Deletes the lease's key, as `etcdctl del`, an operator cleaning keys, or etcd losing its data would. */
async function deleteKey(endpoint: string, name: string): Promise<void> {
  const key = Buffer.from(`${ETCD_KEY_PREFIX}${name}`).toString('base64');
  const res = await fetch(`${endpoint}/v3/kv/deleterange`, { method: 'POST', body: JSON.stringify({ key }) });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { deleted?: string }).deleted, '1');
}

test('the key deleted while a replica leads, again and again: never two leaders, and one leads again', async (t) => {
  const etcd = await startEtcd(t);
  const spans: { who: string; from: number; to: number }[] = [];
  /** Each replica's reads of the record: when, and whose it was (the rule holds for a holder a candidate has seen). */
  const reads: Record<string, { at: number; holder: string | null }[]> = { a: [], b: [] };
  const make = (identity: string) => {
    const store = etcdLeaseStore([etcd.endpoint], 'deleted');
    const get = store.get.bind(store);
    store.get = async (signal) => {
      const current = await get(signal);
      reads[identity]!.push({ at: performance.now(), holder: current?.record.holderIdentity ?? null });
      return current;
    };
    const e = createElector({ store, identity, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250, logger });
    e.onLeadingChange((leading) => {
      if (leading) spans.push({ who: identity, from: performance.now(), to: Infinity });
      else spans.findLast((s) => s.who === identity)!.to = performance.now();
    });
    t.after(() => e.stop());
    e.start();
    return e;
  };
  const both = [make('a'), make('b')];
  for (let round = 0; round < 4; round += 1) {
    const leader = await waitFor('one leader, seen by both', () => {
      const leading = both.filter((e) => e.leading);
      return leading.length === 1 && both.every((e) => e.leader === leading[0]!.identity) ? leading[0] : undefined;
    });
    // The standby has read this leader's record since it began to lead (not only an earlier term's).
    const standby = both.find((e) => e !== leader)!.identity;
    const since = spans.findLast((s) => s.who === leader.identity)!.from;
    await waitFor('the standby to read the leader\'s record', () => (reads[standby]!.some((r) => r.at > since && r.holder === leader.identity) ? true : undefined));
    await deleteKey(etcd.endpoint, 'deleted');
    await waitFor('the leader to find its record gone', () => (leader.leading ? undefined : true));
  }
  await waitFor('a leader again', () => (both.some((e) => e.leading) ? true : undefined));
  const sorted = [...spans].sort((x, y) => x.from - y.from);
  for (let i = 1; i < sorted.length; i += 1) assert.ok(sorted[i]!.from >= sorted[i - 1]!.to, `two leaders at once: ${JSON.stringify(sorted)}`);
  assert.ok(sorted.length >= 5, `a leader after each deletion: ${JSON.stringify(sorted)}`);
});

/** A loopback server that accepts connections and never answers, as a hung etcd member does. */
async function silentServer(t: TestContext): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('a first etcd endpoint that accepts and never answers: the second is asked within the round, a replica leads, and the warning names the hung one', async (t) => {
  const etcd = await startEtcd(t);
  const hung = await silentServer(t);
  const lines: Record<string, unknown>[] = [];
  const capture = createLogger({ level: 'info', stream: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  const timings = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 };
  const settings = { store: 'etcd' as const, endpoints: [hung, etcd.endpoint], leaseName: 'hung', ...timings };
  const a = createElector({ store: await openLeaseStore(settings, {}), identity: 'a', ...timings, logger: capture });
  t.after(() => a.stop());
  a.start();
  await waitFor('a to lead', () => (a.leading ? true : undefined));
  // Only the hung endpoint: the round fails, and says which endpoint did not answer.
  const alone = createElector({ store: await openLeaseStore({ ...settings, endpoints: [hung], leaseName: 'hung-alone' }, {}), identity: 'b', ...timings, logger: capture });
  t.after(() => alone.stop());
  alone.start();
  const warning = await waitFor('a warning', () => lines.find((l) => l.msg === 'cannot reach the leader-election store; trying again every retry period'));
  assert.ok(String(warning.error).includes(hung), JSON.stringify(warning));
  assert.equal(alone.storeReached, false);
  // Both: one round's share each, the first endpoint's failure named too.
  const both = etcdLeaseStore([hung, etcd.endpoint], 'hung', { endpointTimeoutMs: 300 });
  t.after(() => both.close());
  assert.equal((await both.get(signal()))?.record.holderIdentity, 'a');
});

test('an etcd answer larger than 1 MiB is refused unread, naming the endpoint', async (t) => {
  const etcd = await startEtcd(t);
  const key = Buffer.from(`${ETCD_KEY_PREFIX}large`).toString('base64');
  const put = await fetch(`${etcd.endpoint}/v3/kv/put`, { method: 'POST', body: JSON.stringify({ key, value: Buffer.alloc(1_050_000, 120).toString('base64') }) });
  assert.equal(put.status, 200, await put.text());
  const store = etcdLeaseStore([etcd.endpoint], 'large');
  t.after(() => store.close());
  await assert.rejects(store.get(signal()), { name: 'LeaseStoreError', message: new RegExp(`etcd ${etcd.endpoint}.*answered more than 1 MiB`) });
});
