import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiClient } from '../src/api/client.js';
import { Pacer } from '../src/api/pacer.js';
import { readRateLimitHeaders } from '../src/api/rate-limit-headers.js';
import { silentLogger } from '../src/logger.js';
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

  it('a window announced spent with a reset of 0.0 (the hosted service) holds starts about one slot, 1/limit s', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 'auto');
    await startTimes(clock, pacer, 1);
    await clock.advance(1000);
    const observedAt = clock.now();
    pacer.observe({ limit: 10, remaining: 0, resetSeconds: 0 });
    const [next] = await startTimes(clock, pacer, 1);
    assert.ok((next ?? 0) - observedAt >= 100, `started ${(next ?? 0) - observedAt} ms after, inside the slot the window had no room for`);
    assert.ok((next ?? 0) - observedAt <= 150, `started ${(next ?? 0) - observedAt} ms after: held far longer than one slot`);
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

/**
 * A server counting a sliding one-second window for one user, answering each start at once: the
 * pacer's requests plus `othersPerSecond` from another client of the same user, evenly spread.
 */
function sharedServer(clock: VirtualClock, pacer: Pacer, limit: number, othersPerSecond: number) {
  const ours: number[] = [];
  let refused = 0;
  const answer = (startedAt: number): void => {
    const inWindow = ours.filter((t) => t > startedAt - 1000).length;
    const used = inWindow + othersPerSecond;
    if (used >= limit) {
      refused += 1;
      pacer.rateLimited({ limit, remaining: 0, resetSeconds: 0.05 }, startedAt);
      return;
    }
    ours.push(startedAt);
    pacer.observe({ limit, remaining: limit - used - 1, resetSeconds: 0.05 }, startedAt);
  };
  return {
    async send(count: number): Promise<number[]> {
      const starts: number[] = [];
      for (let i = 0; i < count; i += 1) void pacer.acquire().then((slot) => { starts.push(slot.startedAt); answer(slot.startedAt); });
      await clock.runUntilIdle();
      return starts;
    },
    refused: () => refused,
  };
}

describe('adapting to the server and to other clients of the same user', () => {
  it('a configured number is a ceiling: a lower announced limit wins, a higher one does not', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 20);
    await startTimes(clock, pacer, 1);
    pacer.observe({ limit: 10, remaining: 9, resetSeconds: 1 });
    const lower = await startTimes(clock, pacer, 30);
    assert.ok(mostInAnyWindow(lower, 1000) <= 10, 'more than the announced 10 in one second');
    pacer.observe({ limit: 50, remaining: 49, resetSeconds: 1 });
    await clock.advance(1000);
    const higher = await startTimes(clock, pacer, 60);
    assert.ok(mostInAnyWindow(higher, 1000) <= 20, 'more than the configured 20 in one second');
    assert.ok(mostInAnyWindow(higher, 1000) >= 18, 'far below the configured 20');
  });

  it('learns from x-ratelimit-remaining what another client spends and paces at the rest, without 429s', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 'auto');
    const server = sharedServer(clock, pacer, 30, 10);
    await server.send(40);
    const starts = await server.send(120);
    const seconds = ((starts.at(-1) ?? 0) - (starts[0] ?? 0)) / 1000;
    const rate = (starts.length - 1) / seconds;
    assert.ok(rate <= 20, `${rate.toFixed(2)} req/s: more than the 20 the other client leaves`);
    assert.ok(rate >= 17, `${rate.toFixed(2)} req/s: less than 85% of what the other client leaves`);
    assert.ok(server.refused() <= 2, `${server.refused()} requests answered 429 while it learned`);
    assert.equal(pacer.requestsPerSecond < 20, true);
  });

  it('a 429 shrinks the rate by a tenth, answers that come back grow it again, up to 97% of the limit', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 30);
    const { startedAt } = await pacer.acquire();
    const before = pacer.requestsPerSecond;
    pacer.rateLimited({ limit: 30, remaining: 0, resetSeconds: 0.2 }, startedAt);
    const cut = pacer.requestsPerSecond;
    assert.ok(Math.abs(cut - before * 0.9) < 1e-9, `${before} became ${cut}`);
    const next = pacer.acquire();
    await clock.runUntilIdle();
    const counted = (await next).startedAt;
    // Answers to a request the server counted alone in its window: nobody else spends anything.
    for (let i = 0; i < 300; i += 1) pacer.observe({ limit: 30, remaining: 29, resetSeconds: 0 }, counted);
    assert.ok(Math.abs(pacer.requestsPerSecond - 30 * 0.97) < 1e-9, `grew back to ${pacer.requestsPerSecond}`);
  });

  it('on a 429 every start waits the announced reset plus a little jitter, not a fixed floor', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 30);
    const { startedAt } = await pacer.acquire();
    const waitMs = pacer.rateLimited({ limit: 30, remaining: 0, resetSeconds: 0.3 }, startedAt);
    assert.ok(waitMs >= 300 && waitMs <= 355, `waits ${waitMs} ms for a reset of 300 ms`);
    const [next] = await startTimes(clock, pacer, 1);
    assert.ok((next ?? 0) >= waitMs - EPSILON && (next ?? 0) <= waitMs + 1000 / 30, `the next start at ${next} ms`);
  });

  it('a 429 whose reset is under 100 ms (the service sends 0.0) waits at least 100 ms plus jitter, backing off while 429s follow', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 30);
    const waits: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      const [startedAt] = await startTimes(clock, pacer, 1);
      waits.push(pacer.rateLimited({ limit: 30, remaining: 0, resetSeconds: 0 }, startedAt ?? 0));
    }
    const floors = [100, 200, 400, 800, 1000, 1000];
    waits.forEach((wait, i) => assert.ok(wait >= floors[i]! && wait <= floors[i]! * 1.5, `429 number ${i + 1} waits ${wait} ms`));
    pacer.observe({ limit: 30, remaining: 29, resetSeconds: 0 });
    const [startedAt] = await startTimes(clock, pacer, 1);
    const again = pacer.rateLimited({ limit: 30, remaining: 0, resetSeconds: 0.01 }, startedAt ?? 0);
    assert.ok(again >= 100 && again <= 150, `after an answer that was not a 429 the back-off starts over: ${again} ms`);
  });
});

describe('rate-limit headers from a server that cannot be trusted', () => {
  it('clamp the limit to at least 1/s, the remaining to 0..limit and the reset to 60 s', () => {
    assert.deepEqual(readRateLimitHeaders({ 'x-ratelimit-limit': '0.001', 'x-ratelimit-remaining': '-5', 'x-ratelimit-reset': '86400' }),
      { limit: 1, remaining: 0, resetSeconds: 60 });
    assert.deepEqual(readRateLimitHeaders({ 'x-ratelimit-limit': '30', 'x-ratelimit-remaining': '900', 'x-ratelimit-reset': '-3' }),
      { limit: 30, remaining: 30, resetSeconds: 0 });
    assert.deepEqual(readRateLimitHeaders({ 'x-ratelimit-limit': 'many', 'x-ratelimit-remaining': '', 'x-ratelimit-reset': 'Infinity' }),
      { limit: null, remaining: null, resetSeconds: null });
  });

  it('a 429 announcing a reset of a day holds the client a minute at most', async () => {
    const clock = new VirtualClock({ autoAdvance: true });
    let answered = 0;
    const server = createServer((req, res) => {
      answered += 1;
      const first = answered === 1;
      res.writeHead(first ? 429 : 200, {
        'content-type': 'application/vnd.api+json',
        'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': first ? '86400' : '0',
      });
      res.end(JSON.stringify(first ? { errors: [{ status: 429, title: 'Too many requests' }] } : { data: { id: 'pol-1', type: 'policies', attributes: { name: 'p' } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client = new ApiClient({ baseUrl: `http://127.0.0.1:${port}/api/v2`, token: 'hostile-test-token', logger: silentLogger(), clock });
    try {
      const startedAt = clock.now();
      assert.equal((await client.getPolicy('pol-1')).name, 'p');
      const waited = clock.now() - startedAt;
      assert.ok(waited >= 60_000 && waited <= 60_000 + 100, `waited ${waited} ms`);
      assert.equal(client.stats().rateLimited, 1);
    } finally {
      await client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
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
    assert.ok(elapsedMs <= 61 * (1000 / 27), `60 requests took ${elapsedMs} ms of the client's time: slower than 90% of the limit`);
    assert.ok(waitedSeconds > 1, `waited ${waitedSeconds} s`);
    // Eight requests wait at once: the wait is wall-clock time, never more than the run took.
    assert.ok(f.client.stats().rateLimitWaitSeconds <= elapsedMs / 1000 + EPSILON, `waited ${f.client.stats().rateLimitWaitSeconds} s in a ${elapsedMs / 1000} s run`);
    assert.ok(Math.abs(waitedSeconds - f.client.stats().rateLimitWaitSeconds) < 1e-6, 'the reported waits add up to the counted wait');
  });
});
