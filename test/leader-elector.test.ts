/**
 * The election's algorithm on a virtual clock (test/helpers/virtual-clock.ts) over a store in memory
 * (test/helpers/memory-lease-store.ts): thousands of rounds in a second, a store that answers late, a record that
 * disappears, a foreign holder. The stores themselves are held to the same contract on a real etcd
 * (leader-etcd-store.test.ts) and a recorded Lease API (leader-kubernetes-store.test.ts).
 */
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { test, type TestContext } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { systemClock } from '../src/api/clock.js';
import { createElector, LEASE_DURATION_BOUNDS, type Elector, type LeaderRecord } from '../src/leader/index.js';
import { createLogger } from '../src/logger.js';
import { memoryLeaseStore, type MemoryLeaseStore } from './helpers/memory-lease-store.js';
import { VirtualClock } from './helpers/virtual-clock.js';

const logger = createLogger({ level: 'silent' });
/** Long enough in real time that no real timer of a round (its time limit) fires while a test runs. */
const TIMINGS = { leaseDurationMs: 20_000, renewDeadlineMs: 15_000, retryPeriodMs: 5_000 };

const running = new WeakMap<TestContext, Elector[]>();

/** An elector on the virtual clock; all of a test's are stopped together when it ends (a sleep ends only as the clock moves). */
function elector(t: TestContext, clock: VirtualClock, store: MemoryLeaseStore, identity: string, extra: { fingerprint?: string } = {}): Elector {
  const e = createElector({ store, identity, ...TIMINGS, logger, now: () => clock.now(), sleep: (ms) => clock.sleep(ms), ...extra });
  const list = running.get(t);
  if (list !== undefined) list.push(e);
  else {
    running.set(t, [e]);
    t.after(async () => {
      const all = running.get(t) ?? [];
      store.hold(null);
      const stopped = Promise.all(all.map((one) => one.stop()));
      await clock.runUntilIdle();
      await stopped;
    });
  }
  return e;
}

/** Every EventTarget given an 'abort' listener from now on, to count the listeners each holds. */
function trackAbortListeners(t: TestContext): () => number {
  const targets = new Set<WeakRef<EventTarget>>();
  const original = EventTarget.prototype.addEventListener;
  EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, ...rest: unknown[]) {
    if (type === 'abort') targets.add(new WeakRef(this));
    return (original as (...args: unknown[]) => void).call(this, type, ...rest);
  } as typeof original;
  t.after(() => {
    EventTarget.prototype.addEventListener = original;
  });
  return () => {
    let most = 0;
    for (const ref of targets) {
      const target = ref.deref();
      if (target === undefined) targets.delete(ref);
      else most = Math.max(most, getEventListeners(target, 'abort').length);
    }
    return most;
  };
}

async function heapAfterGc(): Promise<number> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let i = 0; i < 3; i += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

/** From a store with no record: a lease duration of absence, the create, and the renewal that confirms it. */
async function coldStart(clock: VirtualClock, e: Elector): Promise<void> {
  await clock.advance(0);
  assert.equal(e.leading, false, 'no leader before a lease duration of absence');
  await clock.advance(TIMINGS.leaseDurationMs + TIMINGS.retryPeriodMs);
  assert.equal(e.leading, true, 'leading once the key was absent for a lease duration and the created record was renewed');
}

async function leadingAfterRounds(clock: VirtualClock, store: MemoryLeaseStore, rounds: number): Promise<void> {
  const target = store.exchanges + rounds;
  while (store.exchanges < target) await clock.advance(TIMINGS.retryPeriodMs);
}

// A listener left per round shows after two rounds; a thousand make it plain.
test('1,000 election rounds leave at most one abort listener on any signal', async (t) => {
  const most = trackAbortListeners(t);
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  const a = elector(t, clock, store, 'a');
  a.start();
  await coldStart(clock, a);
  await leadingAfterRounds(clock, store, 1_000);
  assert.equal(a.leading, true);
  assert.ok(most() <= 1, `${most()} abort listeners on one signal after 1,000 rounds`);
});

test('10,000 election rounds keep the heap bounded', async (t) => {
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  const a = elector(t, clock, store, 'a');
  a.start();
  await leadingAfterRounds(clock, store, 1_000);
  const before = await heapAfterGc();
  await leadingAfterRounds(clock, store, 10_000);
  const grown = (await heapAfterGc()) - before;
  // A listener left per round was about 0.74 KB (7 MB over these rounds); even an empty one costs about 1.5 MB.
  assert.ok(grown < 1024 * 1024, `the heap grew by ${Math.round(grown / 1024)} KB over 10,000 rounds`);
});

test('the other long-lived signals: 500 sleeps of the API clock leave no listener behind', async () => {
  const clock = systemClock();
  const signal = new AbortController().signal;
  for (let i = 0; i < 500; i += 1) await clock.sleep(0, signal);
  assert.equal(getEventListeners(signal, 'abort').length, 0);
});

test('the renew deadline counts from the start of the renewal that succeeded, not from its answer', async (t) => {
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  const a = elector(t, clock, store, 'a');
  a.start();
  await coldStart(clock, a);
  const t0 = clock.now();
  // The renewal at t0 + 5 s is answered only at t0 + 9 s.
  let answer!: () => void;
  store.hold(new Promise<void>((resolve) => (answer = resolve)));
  await clock.advance(TIMINGS.retryPeriodMs);
  assert.equal(clock.now(), t0 + 5_000);
  await clock.advance(4_000);
  store.hold(new Promise<void>(() => undefined));
  answer();
  await clock.advance(0);
  assert.equal(a.leading, true, 'renewed');
  // It reached the store no earlier than t0 + 5 s, so a standby may take over from t0 + 25 s: the leader stops at t0 + 20 s.
  await clock.advance(t0 + 20_000 - clock.now() - 1);
  assert.equal(a.leading, true);
  await clock.advance(2);
  assert.equal(a.leading, false, 'past 5 s + renew-deadline, the leader has stopped');
  assert.throws(() => a.fence(), /does not hold the lease/);
});

test('a record deleted under a leader: it stops at once, and the standby waits out the lease before creating one', async (t) => {
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  const a = elector(t, clock, store, 'a');
  const b = elector(t, clock, store, 'b');
  a.start();
  await coldStart(clock, a);
  b.start();
  await clock.advance(0);
  assert.equal(b.leader, 'a');
  const lastChange = clock.now();
  store.remove();
  const seen: string[] = ['a'];
  for (let at = clock.now(); at < lastChange + TIMINGS.leaseDurationMs + 3 * TIMINGS.retryPeriodMs; at += 250) {
    await clock.advance(250);
    assert.ok(!(a.leading && b.leading), `two leaders at ${clock.now()} ms`);
    if (clock.now() === lastChange + TIMINGS.retryPeriodMs) assert.equal(a.leading, false, 'the leader stopped at its first round without its record');
    const who = a.leading ? 'a' : b.leading ? 'b' : 'nobody';
    if (seen.at(-1) !== who) seen.push(who);
    if (clock.now() < lastChange + TIMINGS.leaseDurationMs) assert.equal(store.record(), null, `a record created at ${clock.now()} ms, before the lease ran out`);
  }
  assert.equal(seen.length, 3, `a, then nobody, then one leader: ${seen.join(' → ')}`);
  assert.equal(seen[1], 'nobody', 'the leader stopped at its first round without its record');
  assert.notEqual(store.record(), null, 'once the lease ran out, a record was created');
});

test('a record created and deleted before the standby read it never makes two leaders', async (t) => {
  // Both start on an empty store; each record is deleted within a retry period of its creation, before the other
  // replica reads it: that one never saw a holder, and the creator finds out only at its next round.
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  const a = elector(t, clock, store, 'a');
  const b = elector(t, clock, store, 'b');
  a.start();
  await clock.advance(TIMINGS.retryPeriodMs / 2);
  b.start();
  const both: string[] = [];
  let deletions = 0;
  for (let step = 0; step < 400; step += 1) {
    await clock.advance(250);
    if (store.record() !== null && deletions < 3) {
      store.remove();
      deletions += 1;
    }
    if (a.leading && b.leading) both.push(`${clock.now()} ms`);
  }
  assert.equal(deletions, 3, 'a record was created three times, each deleted at once');
  assert.deepEqual(both, [], 'never two leaders');
  assert.ok(a.leading || b.leading, 'one leads once the deletions stop');
});

test('a read that fails while the key is absent starts the wait of a lease duration again', async (t) => {
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  const a = elector(t, clock, store, 'a');
  a.start();
  await clock.advance(TIMINGS.leaseDurationMs / 2);
  // What the key held while the store could not be read is unknown: a record may have come and gone.
  store.fail(1);
  await clock.advance(TIMINGS.retryPeriodMs);
  const failedAt = clock.now();
  await clock.advance(TIMINGS.leaseDurationMs);
  assert.equal(store.record(), null, 'no record a lease duration after the first absent read: the failed read started the wait again');
  await clock.advance(failedAt + TIMINGS.leaseDurationMs + 2 * TIMINGS.retryPeriodMs - clock.now());
  assert.equal(store.record()?.holderIdentity, 'a', 'created a lease duration after the reads found it absent again');
  assert.equal(a.leading, true);
});

const held = (holder: string, extra: Partial<LeaderRecord> = {}): LeaderRecord => ({
  holderIdentity: holder, leaseDurationMs: 2_000, acquireTime: 'a', renewTime: 'r', leaderTransitions: 0, ...extra,
});

test('a live holder with another fingerprint is a foreign one: the candidate says why and never writes, until that holder has gone', async (t) => {
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  const a = elector(t, clock, store, 'a', { fingerprint: 'f-mine' });
  // The other deployment's leader renews every 2 s.
  for (let i = 0; i < 30; i += 1) {
    store.put(held('other-deployment', { fingerprint: 'f-other', leaseDurationMs: 8_000 }));
    if (i === 0) a.start();
    await clock.advance(2_000);
    assert.equal(a.leading, false);
  }
  assert.match(a.standingAside ?? '', /other sources or organizations.*f-other.*f-mine.*lease-name/);
  assert.deepEqual(store.kinds, new Set(['get']));
  // Released by its holder, it is free to take, fingerprint or not; so is an expired one (its holder is gone).
  store.put(held('', { fingerprint: 'f-other' }));
  await clock.advance(TIMINGS.retryPeriodMs);
  assert.equal(a.leading, true);
  assert.equal(a.standingAside, null);
  assert.equal(store.record()?.fingerprint, 'f-mine');
});

test('a record whose lease duration is out of bounds is a foreign holder\'s; one without a fingerprint is taken once it expired', async (t) => {
  for (const leaseDurationMs of [Infinity, 1e12, 0, Number.NaN]) {
    await t.test(String(leaseDurationMs), async (t) => {
      const clock = new VirtualClock();
      const store = memoryLeaseStore();
      store.put(held('x', { leaseDurationMs }));
      const a = elector(t, clock, store, 'a', { fingerprint: 'f' });
      a.start();
      await clock.advance(TIMINGS.leaseDurationMs * 3);
      assert.equal(a.leading, false);
      assert.match(a.standingAside ?? '', /lease duration .* is outside 1s to 60m/);
    });
  }
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  store.put(held('older-version', { leaseDurationMs: 8_000 }));
  const a = elector(t, clock, store, 'a', { fingerprint: 'f' });
  a.start();
  await clock.advance(TIMINGS.retryPeriodMs);
  assert.equal(a.leading, false, 'not expired yet');
  await clock.advance(TIMINGS.retryPeriodMs);
  assert.equal(a.leading, true, 'a record of an older version, without a fingerprint, is taken once it expired');
});

test('the wait after a record vanishes is bounded: a vanished holder\'s lease duration counts only up to the longest a record may hold', async (t) => {
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  // A holder whose record claims a lease far over the bound (a foreign one: this replica stands aside from it).
  store.put(held('x', { leaseDurationMs: 100 * LEASE_DURATION_BOUNDS.maxMs }));
  const b = elector(t, clock, store, 'b');
  b.start();
  await clock.advance(0);
  assert.equal(b.leader, 'x');
  store.remove();
  await clock.advance(TIMINGS.retryPeriodMs);
  const absentFrom = clock.now();
  await clock.advance(LEASE_DURATION_BOUNDS.maxMs - TIMINGS.retryPeriodMs);
  assert.equal(store.record(), null, 'not before the bound');
  await clock.advance(absentFrom + LEASE_DURATION_BOUNDS.maxMs + 2 * TIMINGS.retryPeriodMs - clock.now());
  assert.equal(store.record()?.holderIdentity, 'b', 'created once the key was absent for the longest lease a record may hold');
});

test('the wait after a record vanishes starts again when the record comes back and vanishes again', async (t) => {
  const clock = new VirtualClock();
  const store = memoryLeaseStore();
  store.put(held('x', { leaseDurationMs: TIMINGS.leaseDurationMs }));
  const b = elector(t, clock, store, 'b');
  b.start();
  await clock.advance(0);
  store.remove();
  await clock.advance(TIMINGS.retryPeriodMs);
  // Absent at this round; back (written again by its holder) at the next; gone again at the one after.
  store.put(held('x', { leaseDurationMs: TIMINGS.leaseDurationMs }));
  await clock.advance(TIMINGS.retryPeriodMs);
  assert.equal(b.leader, 'x');
  store.remove();
  await clock.advance(TIMINGS.retryPeriodMs);
  const goneAgain = clock.now();
  await clock.advance(TIMINGS.leaseDurationMs - TIMINGS.retryPeriodMs);
  assert.equal(store.record(), null, 'the first absence does not count: the record came back in between');
  await clock.advance(goneAgain + TIMINGS.leaseDurationMs + 2 * TIMINGS.retryPeriodMs - clock.now());
  assert.equal(store.record()?.holderIdentity, 'b', 'created a lease duration after the second absence');
});
