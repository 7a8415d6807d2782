/** The etcd store and the election over it, in-process, against a real etcd (test/helpers/etcd.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../src/logger.js';
import { createElector, etcdLeaseStore, type Elector, type LeaderRecord } from '../src/leader/index.js';
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
