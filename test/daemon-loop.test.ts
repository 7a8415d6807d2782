import './helpers/no-mock-timers-warning.js';
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { silentLogger } from '../src/logger.js';
import { createSourceLoop, type LoopPassEnd, type LoopPassResult, type TriggerReason } from '../src/daemon/source-loop.js';

// Timers and Date are mocked: back-offs and timeouts run on the test's time, never on the wall clock.

interface Recorder {
  starts: { trigger: TriggerReason; at: number }[];
  ends: LoopPassEnd[];
  active: number;
  maxActive: number;
}

function recorder(): Recorder {
  return { starts: [], ends: [], active: 0, maxActive: 0 };
}

function mockTime(t: TestContext): void {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
}

/** Lets the continuations that are ready run (setImmediate is not mocked). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves the mocked time forward by `ms`, then lets what the fired timers started run. */
async function advance(t: TestContext, ms: number): Promise<void> {
  t.mock.timers.tick(ms);
  await settle();
}

/** A pass that records its start and returns `result()` at once, counting how many run together. */
function instantPass(rec: Recorder, result: () => LoopPassResult = () => ({ ok: true })) {
  return async (trigger: TriggerReason): Promise<LoopPassResult> => {
    rec.starts.push({ trigger, at: Date.now() });
    return result();
  };
}

/** A pass that runs until the test releases it, so the test decides what happens while it runs. */
function gatedPass(rec: Recorder) {
  const gates: Array<() => void> = [];
  const pass = async (trigger: TriggerReason): Promise<LoopPassResult> => {
    rec.active += 1;
    rec.maxActive = Math.max(rec.maxActive, rec.active);
    rec.starts.push({ trigger, at: Date.now() });
    try {
      await new Promise<void>((resolve) => gates.push(resolve));
      return { ok: true };
    } finally {
      rec.active -= 1;
    }
  };
  /** Ends the pass in flight. */
  const release = async (): Promise<void> => {
    await settle();
    const gate = gates.shift();
    assert.ok(gate, 'no pass is running');
    gate();
    await settle();
  };
  return { pass, release };
}

test('passes never overlap under concurrent triggers, and triggers during a pass coalesce into exactly one more', async () => {
  const rec = recorder();
  const { pass, release } = gatedPass(rec);
  const loop = createSourceLoop({ name: 's', pass, timeoutMs: 10_000, logger: silentLogger(), onPassEnd: (e) => rec.ends.push(e) });
  loop.trigger('start-up');
  assert.equal(loop.running, true);
  // A burst from every kind of trigger while the first pass runs, some from other async contexts at once.
  await Promise.all(
    (['webhook', 'schedule', 'file-change', 'webhook', 'schedule'] as const).map(async (reason, i) => {
      for (let k = 0; k < i; k += 1) await Promise.resolve();
      loop.trigger(reason);
    }),
  );
  await release();
  assert.deepEqual(rec.starts.map((s) => s.trigger), ['start-up', 'webhook'], 'the burst became exactly one more pass');
  loop.trigger('schedule');
  await release();
  await release();
  await loop.whenIdle();
  assert.equal(rec.maxActive, 1, 'two passes ran at once');
  assert.deepEqual(rec.starts.map((s) => s.trigger), ['start-up', 'webhook', 'schedule'], 'a trigger during the second pass queued a third');
  assert.equal(rec.ends.length, 3);
  assert.ok(rec.ends.every((e) => e.ok));

  // Idle again: a trigger runs at once, and the next burst coalesces again.
  loop.trigger('schedule');
  for (let i = 0; i < 20; i += 1) loop.trigger('file-change');
  await release();
  await release();
  await loop.whenIdle();
  assert.deepEqual(rec.starts.map((s) => s.trigger), ['start-up', 'webhook', 'schedule', 'schedule', 'file-change']);
  assert.equal(rec.maxActive, 1);
  await loop.stop();
});

test('a failing pass is retried with doubling back-off, capped, and resets on success', async (t) => {
  mockTime(t);
  const rec = recorder();
  let failuresLeft = 4;
  const loop = createSourceLoop({
    name: 's',
    pass: instantPass(rec, () => (failuresLeft-- > 0 ? { ok: false, error: 'API down' } : { ok: true })),
    timeoutMs: 10_000,
    backoff: { initialMs: 100, maxMs: 250 },
    logger: silentLogger(),
    onPassEnd: (e) => rec.ends.push(e),
  });
  loop.trigger('start-up');
  await settle();
  // 100, 200, then capped at 250 twice; nothing runs a millisecond early.
  for (const delay of [100, 200, 250, 250]) {
    const passes = rec.starts.length;
    assert.equal(loop.retryAt, Date.now() + delay, `retry due ${delay} ms after failure ${passes}`);
    await advance(t, delay - 1);
    assert.equal(rec.starts.length, passes, `the retry after failure ${passes} came early`);
    await advance(t, 1);
    assert.equal(rec.starts.length, passes + 1, `the retry after failure ${passes} did not come`);
  }
  assert.deepEqual(rec.ends.map((e) => e.ok), [false, false, false, false, true]);
  assert.deepEqual(rec.starts.map((s) => s.trigger), ['start-up', 'retry', 'retry', 'retry', 'retry']);
  assert.deepEqual(rec.starts.map((s) => s.at), [0, 100, 300, 550, 800]);
  assert.equal(rec.ends[0]?.error, 'API down');
  assert.equal(loop.retryAt, null, 'no retry pending after a success');
  await advance(t, 60_000);
  assert.equal(rec.starts.length, 5, 'nothing runs after the success');
  await loop.stop();
});

test('a new trigger supersedes the back-off wait', async (t) => {
  mockTime(t);
  const rec = recorder();
  let fail = true;
  const loop = createSourceLoop({
    name: 's',
    pass: instantPass(rec, () => (fail ? { ok: false, error: 'bad commit' } : { ok: true })),
    timeoutMs: 10_000,
    backoff: { initialMs: 60_000, maxMs: 300_000 },
    logger: silentLogger(),
    onPassEnd: (e) => rec.ends.push(e),
  });
  loop.trigger('start-up');
  await loop.whenIdle();
  assert.equal(loop.retryAt, Date.now() + 60_000, 'a retry is due in a minute');
  fail = false;
  await advance(t, 1_000);
  loop.trigger('webhook'); // a new commit
  await loop.whenIdle();
  assert.deepEqual(rec.ends.map((e) => [e.trigger, e.ok]), [['start-up', false], ['webhook', true]]);
  assert.equal(rec.starts[1]?.at, 1_000, 'the new commit did not wait for the back-off');
  assert.equal(loop.retryAt, null, 'the pending retry was cancelled');
  await advance(t, 120_000);
  assert.equal(rec.starts.length, 2, 'the cancelled retry never runs');
  await loop.stop();
});

test('a pass that exceeds its timeout is aborted, counted as timed out, and the next starts only after it settled', async (t) => {
  mockTime(t);
  const rec = recorder();
  let settledAt = 0;
  const aborted: { reason?: unknown } = {};
  const loop = createSourceLoop({
    name: 's',
    async pass(trigger, signal) {
      rec.active += 1;
      rec.maxActive = Math.max(rec.maxActive, rec.active);
      rec.starts.push({ trigger, at: Date.now() });
      try {
        if (trigger !== 'start-up') return { ok: true };
        // Honours the abort, but only after a little cleanup, like a pass finishing its queued calls.
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        aborted.reason = signal.reason;
        await new Promise((resolve) => setTimeout(resolve, 100));
        settledAt = Date.now();
        return { ok: true };
      } finally {
        rec.active -= 1;
      }
    },
    timeoutMs: 150,
    backoff: { initialMs: 50, maxMs: 50 },
    logger: silentLogger(),
    onPassEnd: (e) => rec.ends.push(e),
  });
  loop.trigger('start-up');
  await advance(t, 50);
  loop.trigger('webhook');
  await advance(t, 99);
  assert.equal(aborted.reason === undefined, true, 'aborted before its timeout');
  await advance(t, 1);
  assert.ok(aborted.reason instanceof Error && /timed out/.test(aborted.reason.message));
  assert.equal(rec.starts.length, 1, 'the queued pass started before the timed-out one settled');
  await advance(t, 100);
  await loop.whenIdle();
  assert.equal(rec.maxActive, 1);
  assert.equal(settledAt, 250);
  assert.equal(rec.ends[0]?.timedOut, true);
  assert.equal(rec.ends[0]?.ok, false, 'a timed-out pass is a failure even when it resolves ok');
  assert.match(rec.ends[0]?.error ?? '', /timed out after 0.15 s/);
  assert.equal(rec.ends[0]?.durationMs, 250);
  assert.equal(rec.starts[1]?.at, settledAt, 'the queued pass started as soon as the timed-out one settled');
  assert.deepEqual(rec.ends.map((e) => e.trigger), ['start-up', 'webhook']);
  await loop.stop();
});

test('a thrown error is a failed pass; stop waits for the pass in flight and drops the queued one', async (t) => {
  mockTime(t);
  const rec = recorder();
  const loop = createSourceLoop({
    name: 's',
    pass: async (trigger) => {
      rec.starts.push({ trigger, at: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 100));
      if (trigger === 'start-up') throw new Error('fetch of https://user:secret@git.example.com/r.git failed');
      return { ok: true };
    },
    timeoutMs: 10_000,
    backoff: { initialMs: 10_000, maxMs: 10_000 },
    logger: silentLogger(),
    onPassEnd: (e) => rec.ends.push(e),
  });
  loop.trigger('start-up');
  await advance(t, 20);
  loop.trigger('webhook');
  const stopping = loop.stop();
  loop.trigger('schedule');
  let stopped = false;
  void stopping.then(() => (stopped = true));
  await advance(t, 79);
  assert.equal(stopped, false, 'stop returned while the pass was still running');
  await advance(t, 1);
  await stopping;
  assert.equal(rec.ends.length, 1, 'the pass in flight finished; the queued one was dropped');
  assert.equal(rec.ends[0]?.ok, false);
  assert.equal(rec.ends[0]?.error, 'fetch of https://***@git.example.com/r.git failed', 'credentials are redacted');
  assert.equal(loop.retryAt, null, 'no retry after stop');
  assert.equal(loop.running, false);
  await advance(t, 20_000);
  assert.equal(rec.starts.length, 1, 'nothing runs after stop');
});

test('stop waits for the pass in flight at most the grace time, then aborts it and waits for it to settle', async (t) => {
  mockTime(t);
  const aborted: { reason?: unknown } = {};
  const loop = createSourceLoop({
    name: 's',
    async pass(_trigger, signal) {
      // A pass whose requests hang until they are aborted.
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      aborted.reason = signal.reason;
      return { ok: false, error: 'aborted' };
    },
    timeoutMs: 60_000,
    logger: silentLogger(),
  });
  loop.trigger('start-up');
  await advance(t, 10);
  let stopped = false;
  const stopping = loop.stop(2_000).then(() => (stopped = true));
  await advance(t, 1_999);
  assert.equal(stopped, false, 'stop waits for the pass during the grace time');
  assert.equal(aborted.reason, undefined);
  await advance(t, 1);
  await stopping;
  const reason: unknown = aborted.reason;
  assert.ok(reason instanceof Error && /aborted after waiting 2 s/.test(reason.message), String(reason));
});

test('stop tells the pass in flight at once to start no new change, and waits for it to finish without aborting it', async (t) => {
  mockTime(t);
  let stopSignal: AbortSignal | null = null;
  let passSignal: AbortSignal | null = null;
  let finish: (() => void) | null = null;
  const loop = createSourceLoop({
    name: 's',
    async pass(_trigger, signal, stop) {
      passSignal = signal;
      stopSignal = stop;
      await new Promise<void>((resolve) => (finish = resolve));
      return { ok: true };
    },
    timeoutMs: 60_000,
    logger: silentLogger(),
  });
  loop.trigger('start-up');
  await advance(t, 10);
  assert.equal(stopSignal!.aborted, false);
  let stopped = false;
  const stopping = loop.stop(30_000).then(() => (stopped = true));
  assert.equal(stopSignal!.aborted, true, 'the stop reaches the pass at once');
  assert.match(String((stopSignal!.reason as Error).message), /shutting down/);
  await advance(t, 1_000);
  assert.equal(stopped, false, 'the changes under way are awaited');
  finish!();
  await stopping;
  assert.equal(passSignal!.aborted, false, 'a pass that finishes in time is not aborted');
});
