/**
 * One retry engine for all outgoing HTTP: the API's transport, notifications and the pull-request comment wait what a
 * 429's or 503's `Retry-After` asks (seconds or an HTTP date), else the same capped back-off with jitter. Every wait
 * runs on a virtual clock: the figures are the time the code asked to wait, never wall time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { upsertStickyComment } from '../src/ci/sticky-comment.js';
import { OutgoingHttp } from '../src/http/outgoing.js';
import { backoffDelay, retryAfterMs } from '../src/http/retry.js';
import { createDeliveryQueue, type DeliveryResult } from '../src/notify/delivery.js';
import { startApiFixture, testSeed, type ApiFixture } from './helpers/api-fixture.js';
import { startFakeGitHub } from './helpers/fake-github.js';
import { captureLogs } from './helpers/logs.js';
import { startReceiver } from './helpers/receiver.js';
import { VirtualClock } from './helpers/virtual-clock.js';

const DATE = 'Wed, 25 Nov 2026 10:00:00 GMT';

describe('Retry-After and the one back-off', () => {
  it('reads delay seconds and HTTP dates (from the answer\'s own Date), clamped to a minute; the back-off doubles with half of it random', () => {
    assert.equal(retryAfterMs({ 'retry-after': '7' }, 0), 7000);
    assert.equal(retryAfterMs({ 'retry-after': 'Wed, 25 Nov 2026 10:00:04 GMT', date: DATE }, 0), 4000);
    assert.equal(retryAfterMs({ 'retry-after': 'Wed, 25 Nov 2026 10:00:04 GMT' }, Date.parse(DATE) + 1000), 3000);
    assert.equal(retryAfterMs({ 'retry-after': '86400' }, 0), 60_000);
    assert.equal(retryAfterMs({ 'retry-after': 'soon' }, 0), null);
    assert.equal(retryAfterMs({}, 0), null);
    const backoff = { initialMs: 1000, maxMs: 5000, jitter: 'half' as const };
    assert.deepEqual([1, 2, 3, 4].map((n) => backoffDelay(n, backoff, 0.5)), [750, 1500, 3000, 3750]);
    assert.deepEqual([1, 2, 3].map((n) => backoffDelay(n, backoff, 0)), [500, 1000, 2000]);
  });

  describe('the API client', () => {
    let f: ApiFixture;
    let client: ApiClient;
    let policyId: string;
    const clock = new VirtualClock({ autoAdvance: true });
    before(async () => {
      f = await startApiFixture(testSeed());
      client = new ApiClient({ baseUrl: f.emulator.url, token: f.emulator.token, logger: captureLogs().logger, clock });
      const made = await client.createPolicy('acme', { name: 'retry-after', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
      policyId = made.id;
    });
    after(async () => {
      await client.close();
      await f.close();
    });

    it('a 503 with Retry-After and no x-ratelimit-reset waits what it asks, not the back-off', async () => {
      await f.emulator.addFaults({ kind: 'status', method: 'GET', path: '^/policies/', status: 503, headers: { 'retry-after': '7' } });
      const started = clock.now();
      assert.equal((await client.getPolicy(policyId)).id, policyId);
      assert.equal(clock.now() - started, 7000);
    });

    it('a 429 with a Retry-After date waits until then, counted from the answer\'s Date', async () => {
      await f.emulator.addFaults({ kind: 'status', method: 'GET', path: '^/policies/', status: 429, headers: { 'retry-after': 'Wed, 25 Nov 2026 10:00:04 GMT', date: DATE } });
      const started = clock.now();
      assert.equal((await client.getPolicy(policyId)).id, policyId);
      const waited = clock.now() - started;
      assert.ok(waited >= 4000 && waited < 4100, `waited ${waited} ms`);
    });

    it('x-ratelimit-reset wins over Retry-After on a 429', async () => {
      await f.emulator.addFaults({ kind: 'status', method: 'GET', path: '^/policies/', status: 429, headers: { 'retry-after': '30', 'x-ratelimit-reset': '2' } });
      const started = clock.now();
      await client.getPolicy(policyId);
      const waited = clock.now() - started;
      assert.ok(waited >= 2000 && waited < 2100, `waited ${waited} ms`);
    });
  });

  it('notifications: a 429\'s Retry-After, then the back-off with jitter', async (t) => {
    const receiver = await startReceiver(t, [{ status: 429, headers: { 'retry-after': '3' } }, 503, 200]);
    const clock = new VirtualClock({ autoAdvance: true });
    const results: DeliveryResult[] = [];
    const http = new OutgoingHttp({ clock });
    t.after(() => http.close());
    const queue = createDeliveryQueue({ receiver: 'r', logger: captureLogs().logger, http, limits: { attempts: 5, timeoutMs: 5_000, backoffMs: 1_000 }, onResult: (_, __, result) => results.push(result) });
    queue.push({ event: 'applied', url: receiver.url, headers: { 'content-type': 'application/json' }, body: '{}' });
    await queue.drain(30_000);
    assert.deepEqual(results, ['sent']);
    assert.equal(receiver.received.length, 3);
    // 3 s asked by the 429, then the second try's back-off: 1 s doubled once, half of it random (the clock's 0.5).
    assert.equal(clock.now(), 3000 + 1500);
  });

  it('the pull-request comment is retried after a busy answer, and its create only after a 429', async () => {
    const github = await startFakeGitHub('o/r', 'gh-token');
    const clock = new VirtualClock({ autoAdvance: true });
    const http = new OutgoingHttp({ clock });
    try {
      github.failures.push({ status: 502 }, { status: 429, headers: { 'retry-after': '5' } });
      const first = await upsertStickyComment({ apiUrl: github.url, repository: 'o/r', issue: 7, token: 'gh-token', body: 'plan one', source: 's', http });
      assert.equal(first.action, 'created');
      assert.ok(clock.now() >= 5000, `the 429 was waited out: ${clock.now()}`);

      // A create answered 502 may have been made: it is not sent again. (`/user` and the list pass with bodies that
      // name nobody and no comment, then the create fails.)
      const before = github.requests.length;
      github.failures.push({ status: 200 }, { status: 200 }, { status: 502 });
      await assert.rejects(
        upsertStickyComment({ apiUrl: github.url, repository: 'o/r', issue: 8, token: 'gh-token', body: 'plan two', source: 's', http }),
        /GitHub answered 502 to POST/,
      );
      assert.deepEqual(github.requests.slice(before).map((r) => r.method), ['GET', 'GET', 'POST']);
    } finally {
      await http.close();
      await github.close();
    }
  });
});
