import assert from 'node:assert/strict';
import { test } from 'node:test';
import { silentLogger } from '../src/logger.js';
import { createSourceLoop, type LoopPassEnd, type LoopPassResult, type TriggerReason } from '../src/daemon/source-loop.js';
import { sleep, waitFor } from './helpers/daemon-fixtures.js';

interface Recorder {
  starts: { trigger: TriggerReason; at: number }[];
  ends: LoopPassEnd[];
  active: number;
  maxActive: number;
}

function recorder(): Recorder {
  return { starts: [], ends: [], active: 0, maxActive: 0 };
}

/** A real async pass that takes `ms` and measures how many passes run at once. */
function timedPass(rec: Recorder, ms: number, result: () => LoopPassResult = () => ({ ok: true })) {
  return async (trigger: TriggerReason): Promise<LoopPassResult> => {
    rec.active += 1;
    rec.maxActive = Math.max(rec.maxActive, rec.active);
    rec.starts.push({ trigger, at: Date.now() });
    try {
      await sleep(ms);
      return result();
    } finally {
      rec.active -= 1;
    }
  };
}

test('passes never overlap under concurrent triggers, and triggers during a pass coalesce into exactly one more', async () => {
  const rec = recorder();
  const loop = createSourceLoop({ name: 's', pass: timedPass(rec, 120), timeoutMs: 10_000, logger: silentLogger(), onPassEnd: (e) => rec.ends.push(e) });
  loop.trigger('start-up');
  await sleep(20);
  assert.equal(loop.running, true);
  // A burst from every kind of trigger while the first pass runs, some from other async contexts at once.
  await Promise.all(
    (['webhook', 'schedule', 'file-change', 'webhook', 'schedule'] as const).map(async (reason, i) => {
      await sleep(i * 10);
      loop.trigger(reason);
    }),
  );
  await loop.whenIdle();
  assert.equal(rec.maxActive, 1, 'two passes ran at once');
  assert.deepEqual(rec.starts.map((s) => s.trigger), ['start-up', 'webhook'], 'the burst became exactly one more pass');
  assert.equal(rec.ends.length, 2);
  assert.ok(rec.ends.every((e) => e.ok));

  // Idle again: a trigger runs at once, and the next burst coalesces again.
  loop.trigger('schedule');
  for (let i = 0; i < 20; i += 1) loop.trigger('file-change');
  await loop.whenIdle();
  assert.deepEqual(rec.starts.map((s) => s.trigger), ['start-up', 'webhook', 'schedule', 'file-change']);
  assert.equal(rec.maxActive, 1);
  await loop.stop();
});

test('a failing pass is retried with doubling back-off, capped, and resets on success', async () => {
  const rec = recorder();
  let failuresLeft = 4;
  const loop = createSourceLoop({
    name: 's',
    pass: timedPass(rec, 5, () => (failuresLeft-- > 0 ? { ok: false, error: 'API down' } : { ok: true })),
    timeoutMs: 10_000,
    backoff: { initialMs: 100, maxMs: 250 },
    logger: silentLogger(),
    onPassEnd: (e) => rec.ends.push(e),
  });
  loop.trigger('start-up');
  await waitFor('the pass after four failures', () => (rec.ends.length === 5 ? true : undefined));
  assert.deepEqual(rec.ends.map((e) => e.ok), [false, false, false, false, true]);
  assert.deepEqual(rec.starts.slice(1).map((s) => s.trigger), ['retry', 'retry', 'retry', 'retry']);
  assert.equal(rec.ends[0]?.error, 'API down');
  const gaps = rec.starts.slice(1).map((s, i) => s.at - (rec.starts[i]?.at ?? 0));
  // 100, 200, then capped at 250 twice (each gap also holds the 5 ms pass).
  for (const [i, min] of [100, 200, 250, 250].entries()) assert.ok((gaps[i] ?? 0) >= min, `gap ${i} was ${gaps[i]} ms, expected >= ${min}`);
  assert.ok((gaps[3] ?? 0) < 2_000, 'the back-off is capped');
  assert.equal(loop.retryAt, null, 'no retry pending after a success');
  await sleep(300);
  assert.equal(rec.starts.length, 5, 'nothing runs after the success');
  await loop.stop();
});

test('a new trigger supersedes the back-off wait', async () => {
  const rec = recorder();
  let fail = true;
  const loop = createSourceLoop({
    name: 's',
    pass: timedPass(rec, 5, () => (fail ? { ok: false, error: 'bad commit' } : { ok: true })),
    timeoutMs: 10_000,
    backoff: { initialMs: 60_000, maxMs: 300_000 },
    logger: silentLogger(),
    onPassEnd: (e) => rec.ends.push(e),
  });
  loop.trigger('start-up');
  await loop.whenIdle();
  const retryAt = loop.retryAt;
  assert.ok(retryAt !== null && retryAt - Date.now() > 50_000, 'a retry is due in about a minute');
  fail = false;
  const before = Date.now();
  loop.trigger('webhook'); // a new commit
  await loop.whenIdle();
  assert.ok(Date.now() - before < 5_000, 'the new commit did not wait for the back-off');
  assert.deepEqual(rec.ends.map((e) => [e.trigger, e.ok]), [['start-up', false], ['webhook', true]]);
  assert.equal(loop.retryAt, null, 'the pending retry was cancelled');
  await loop.stop();
});

test('a pass that exceeds its timeout is aborted, counted as timed out, and the next starts only after it settled', async () => {
  const rec = recorder();
  let settledAt = 0;
  let signalReason: unknown;
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
        signalReason = signal.reason;
        await sleep(100);
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
  await sleep(50);
  loop.trigger('webhook');
  await loop.whenIdle();
  assert.equal(rec.maxActive, 1);
  assert.ok(signalReason instanceof Error && /timed out/.test(signalReason.message));
  assert.equal(rec.ends[0]?.timedOut, true);
  assert.equal(rec.ends[0]?.ok, false, 'a timed-out pass is a failure even when it resolves ok');
  assert.match(rec.ends[0]?.error ?? '', /timed out after 0.15 s/);
  assert.ok((rec.starts[1]?.at ?? 0) >= settledAt, 'the queued pass waited for the timed-out one to settle');
  assert.deepEqual(rec.ends.map((e) => e.trigger), ['start-up', 'webhook']);
  await loop.stop();
});

test('a thrown error is a failed pass; stop waits for the pass in flight and drops the queued one', async () => {
  const rec = recorder();
  const loop = createSourceLoop({
    name: 's',
    pass: async (trigger) => {
      rec.starts.push({ trigger, at: Date.now() });
      await sleep(100);
      if (trigger === 'start-up') throw new Error('fetch of https://user:secret@git.example.com/r.git failed');
      return { ok: true };
    },
    timeoutMs: 10_000,
    backoff: { initialMs: 10_000, maxMs: 10_000 },
    logger: silentLogger(),
    onPassEnd: (e) => rec.ends.push(e),
  });
  loop.trigger('start-up');
  await sleep(20);
  loop.trigger('webhook');
  const stopping = loop.stop();
  loop.trigger('schedule');
  await stopping;
  assert.equal(rec.ends.length, 1, 'the pass in flight finished; the queued one was dropped');
  assert.equal(rec.ends[0]?.ok, false);
  assert.equal(rec.ends[0]?.error, 'fetch of https://***@git.example.com/r.git failed', 'credentials are redacted');
  assert.equal(loop.retryAt, null, 'no retry after stop');
  assert.equal(loop.running, false);
});
