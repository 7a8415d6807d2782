import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Pacer } from '../src/api/pacer.js';
import { startApiFixture, testSeed, type ApiFixture } from './helpers/api-fixture.js';
import { VirtualClock } from './helpers/virtual-clock.js';

// Spacing is checked on a virtual clock, so the result does not depend on how busy the machine is.
// The sustained rate against the emulator in real time is measured by bench/api-rate.ts.

/** Asks `pacer` for `count` start slots at once; resolves with the virtual time of each start, in order. */
async function startTimes(clock: VirtualClock, pacer: Pacer, count: number): Promise<number[]> {
  const starts: number[] = [];
  for (let i = 0; i < count; i += 1) void pacer.acquire().then(() => starts.push(clock.now()));
  await clock.runUntilIdle();
  assert.equal(starts.length, count, 'every request got its slot');
  return starts;
}

const EPSILON = 1e-6;

/** The most starts that fall in any window of `ms` (start inclusive, end exclusive, give or take rounding). */
function mostInAnyWindow(starts: number[], ms: number): number {
  let most = 0;
  for (const [i, from] of starts.entries()) most = Math.max(most, starts.slice(i).filter((t) => t < from + ms - EPSILON).length);
  return most;
}

function gaps(starts: number[]): number[] {
  return starts.slice(1).map((t, i) => t - (starts[i] ?? 0));
}

describe('pacing on a virtual clock', () => {
  it('at 30 req/s: starts are spaced evenly, never more than 30 in a second, and as close to the limit as holds', async () => {
    const clock = new VirtualClock();
    const starts = await startTimes(clock, new Pacer(clock, 30), 90);
    assert.equal(starts[0], 0, 'the first request does not wait');
    for (const gap of gaps(starts)) assert.ok(gap >= 1000 / 30 - EPSILON, `a gap of ${gap} ms is a burst`);
    assert.ok(mostInAnyWindow(starts, 1000) <= 30, 'more than 30 starts in one second');
    const rate = (starts.length - 1) / ((starts.at(-1) ?? 0) / 1000);
    assert.ok(rate >= 27, `sustained ${rate.toFixed(2)} req/s, less than 90% of the limit`);
  });

  it('auto: follows the limit the server announces, and does not pace a server that announces none', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 'auto');
    await startTimes(clock, pacer, 1);
    pacer.observe({ limit: 10, remaining: 9, resetSeconds: 1 });
    const paced = await startTimes(clock, pacer, 21);
    assert.ok(mostInAnyWindow(paced, 1000) <= 10, 'more starts in one second than the announced 10');
    for (const gap of gaps(paced)) assert.ok(gap >= 100 - EPSILON, `a gap of ${gap} ms at 10 req/s`);

    pacer.observe({ limit: null, remaining: null, resetSeconds: null });
    await clock.advance(1000);
    const unpaced = await startTimes(clock, pacer, 20);
    assert.deepEqual(new Set(unpaced), new Set([clock.now()]), 'no limit announced: nothing waits');
  });

  it('a response saying the window is spent holds every start until the window ends', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 30);
    await startTimes(clock, pacer, 1);
    pacer.observe({ limit: 30, remaining: 0, resetSeconds: 0.4 });
    const starts = await startTimes(clock, pacer, 3);
    assert.ok((starts[0] ?? 0) >= 400, `started at ${starts[0]} ms, inside the spent window`);
  });

  it('a pause (after a 429) holds every start until it ends', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 30);
    await startTimes(clock, pacer, 1);
    await clock.advance(100);
    pacer.pauseFor(1500);
    const starts = await startTimes(clock, pacer, 3);
    assert.ok((starts[0] ?? 0) >= 1600, `started at ${starts[0]} ms, before the pause ended`);
    for (const gap of gaps(starts)) assert.ok(gap >= 1000 / 30 - EPSILON, 'after a pause, starts are spaced again, not bursted');
  });
});

describe('pacing through the client', () => {
  const clock = new VirtualClock({ autoAdvance: true });
  let f: ApiFixture;
  const answered: Array<number | 'error'> = [];
  let waitedSeconds = 0;
  before(async () => {
    // The emulator does not limit here; the client is configured to 30 req/s and its clock is the only one that sleeps.
    f = await startApiFixture(testSeed({ rateLimit: 0 }), {
      rateLimit: 30,
      clock,
      onRequest: ({ status }) => void answered.push(status),
      onRateLimitWait: (seconds) => void (waitedSeconds += seconds),
    });
  });
  after(() => f.close());

  it('every request to the API waits for its slot; each wait is reported once and counted', async () => {
    const { id } = await f.client.createPolicy('acme', {
      name: 'paced', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
    await f.emulator.clearRequests();
    const startedAt = clock.now();
    await Promise.all(Array.from({ length: 60 }, () => f.client.getPolicy(id)));
    const elapsedMs = clock.now() - startedAt;

    const logged = await f.emulator.requests();
    assert.equal(logged.filter((r) => r.status === 200).length, 60);
    assert.equal(answered.length, 61, 'onRequest once per response');
    assert.ok(elapsedMs >= 60 * (1000 / 30) - EPSILON, `60 requests took ${elapsedMs} ms of the client's time: not paced`);
    assert.ok(elapsedMs <= 61 * (1000 / 30), `60 requests took ${elapsedMs} ms of the client's time: slower than the limit`);
    assert.ok(waitedSeconds > 1, `waited ${waitedSeconds} s`);
    // Eight requests wait at once: the wait is wall-clock time, never more than the run took.
    assert.ok(f.client.stats().rateLimitWaitSeconds <= elapsedMs / 1000 + EPSILON, `waited ${f.client.stats().rateLimitWaitSeconds} s in a ${elapsedMs / 1000} s run`);
    assert.ok(Math.abs(waitedSeconds - f.client.stats().rateLimitWaitSeconds) < 1e-6, 'the reported waits add up to the counted wait');
  });
});
