import './helpers/no-mock-timers-warning.js';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { policyBody, type RawResponse, TestEmulator, orgSeed } from './helpers/emulator.js';

const LIMIT = 10_485_760;

/** A chunked upload (no Content-Length) of `total` bytes; resolves with the status, or 'reset' when the socket closed first. */
function chunkedUpload(url: string, token: string, total: number): Promise<number | 'reset'> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' } });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve('reset'));
    const chunk = Buffer.alloc(1024 * 1024, 'a');
    let sent = 0;
    const pump = (): void => {
      while (sent < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

describe('emulator errors', () => {
  let t: TestEmulator;
  let policyId: string;
  before(async () => {
    t = await TestEmulator.start(orgSeed());
    const res = await t.call('POST', '/organizations/org/policies', { body: policyBody('big', { 'enforcement-level': 'advisory' }) });
    policyId = res.json.data.id;
    await t.call('PUT', `/policies/${policyId}/upload`, { raw: 'original', contentType: 'application/octet-stream' });
  });
  after(() => t.close());

  it('answers a missing or wrong token with 401 and an error document', async () => {
    for (const token of [null, 'wrong-token']) {
      const res = await t.call('GET', '/organizations/org/policies', { token });
      assert.equal(res.status, 401);
      assert.equal(res.json.errors[0].status, '401');
    }
    const control = await fetch(`${t.emu.origin}/_emulator/state`, { headers: { authorization: 'Bearer nope' } });
    assert.equal(control.status, 401);
  });

  it('answers an unknown organization, unknown ids and unknown routes with 404 and an error document', async () => {
    const paths = [
      '/organizations/nope/policies',
      '/organizations/nope/agent-pools',
      '/policies/pol-doesnotexist0000',
      '/policies/pol-doesnotexist0000/download',
      '/agent-pools/apool-doesnotexist00',
      '/agent-pools/apool-doesnotexist00/agents',
      '/agents/agent-doesnotexist00',
      '/no-such-route',
    ];
    for (const path of paths) {
      const res = await t.call('GET', path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.json.errors[0], { status: '404', title: 'not found' }, path);
    }
    const create = await t.call('POST', '/organizations/nope/policies', { body: policyBody('x', { 'enforcement-level': 'advisory' }) });
    assert.equal(create.status, 404);
    const upload = await t.call('PUT', '/policies/pol-doesnotexist0000/upload', { raw: 'x', contentType: 'application/octet-stream' });
    assert.equal(upload.status, 404);
    assert.equal((await fetch(`${t.emu.origin}/elsewhere`)).status, 404);
  });

  it('refuses an upload over 10 MB with 413 by Content-Length and saves nothing', async () => {
    const res = await t.call('PUT', `/policies/${policyId}/upload`, { raw: Buffer.alloc(LIMIT + 1, 'x'), contentType: 'application/octet-stream' });
    assert.equal(res.status, 413);
    assert.equal(res.json.errors[0].status, '413');
    const code = await t.call('GET', `/policies/${policyId}/download`, { redirect: 'follow' });
    assert.equal(code.text, 'original');
  });

  it('refuses a chunked upload over 10 MB with 413 while streaming and saves nothing; exactly 10 MB is accepted', async () => {
    const before = (await t.call('GET', `/policies/${policyId}`)).json.data.attributes['updated-at'];
    assert.equal(await chunkedUpload(`${t.emu.url}/policies/${policyId}/upload`, t.emu.token, LIMIT + 5 * 1024 * 1024), 413);
    const after = await t.call('GET', `/policies/${policyId}`);
    assert.equal(after.json.data.attributes['updated-at'], before);
    assert.equal((await t.call('GET', `/policies/${policyId}/download`, { redirect: 'follow' })).text, 'original');

    assert.equal(await chunkedUpload(`${t.emu.url}/policies/${policyId}/upload`, t.emu.token, LIMIT), 200);
    const full = await t.call('GET', `/policies/${policyId}/download`, { redirect: 'follow' });
    assert.equal(full.text.length, LIMIT);
  });
});

describe('emulator rate limit, fixed windows', () => {
  let t: TestEmulator;
  before(async () => {
    t = await TestEmulator.start(orgSeed({ rateLimit: 5, rateLimitWindow: 'fixed' }));
  });
  after(() => t.close());

  it('carries the three headers and answers 429 with the exact body over the limit; a new window starts a second later', async (context) => {
    // Date is mocked: the emulator's one-second windows run on the test's time, so no request straddles a window.
    context.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-03-01T12:00:00.000Z') });
    const statuses: number[] = [];
    const resets: string[] = [];
    let last: RawResponse | undefined;
    for (let i = 0; i < 6; i += 1) {
      if (i > 0) context.mock.timers.tick(100);
      last = await t.call('GET', '/organizations/org/policies');
      statuses.push(last.status);
      assert.equal(last.headers.get('x-ratelimit-limit'), '5');
      assert.equal(last.headers.get('x-ratelimit-remaining'), String(Math.max(0, 4 - i)));
      resets.push(last.headers.get('x-ratelimit-reset') ?? '');
    }
    assert.deepEqual(statuses, [200, 200, 200, 200, 200, 429]);
    assert.deepEqual(resets, ['1.000', '0.900', '0.800', '0.700', '0.600', '0.500'], 'seconds until the window ends');
    assert.deepEqual(last!.json, { errors: [{ detail: "You have exceeded the API's rate limit.", status: 429, title: 'Too many requests' }] });
    const state = await t.control('GET', '/state');
    assert.equal(state.status, 200, 'control endpoints are not rate limited');
    context.mock.timers.tick(499);
    assert.equal((await t.call('GET', '/organizations/org/policies')).status, 429, 'the window is still spent');
    context.mock.timers.tick(1);
    const fresh = await t.call('GET', '/organizations/org/policies');
    assert.equal(fresh.status, 200, 'a new window');
    assert.equal(fresh.headers.get('x-ratelimit-remaining'), '4');
  });

  it('changes the limit and the window through the control endpoint; 0 turns it off', async () => {
    assert.equal((await t.control('PUT', '/rate-limit', { limit: 0 })).status, 200);
    for (let i = 0; i < 12; i += 1) assert.equal((await t.call('GET', '/organizations/org/policies')).status, 200);
    assert.deepEqual((await t.control('PUT', '/rate-limit', { limit: 50 })).json, { limit: 50, window: 'fixed' });
    const res = await t.call('GET', '/organizations/org/policies');
    assert.equal(res.headers.get('x-ratelimit-limit'), '50');
    assert.equal((await t.control('PUT', '/rate-limit', { limit: -1 })).status, 400);
    assert.equal((await t.control('PUT', '/rate-limit', { window: 'rolling' })).status, 400);
    assert.deepEqual((await t.control('PUT', '/rate-limit', { window: 'sliding' })).json, { limit: 50, window: 'sliding' });
  });
});

describe('emulator rate limit, sliding window (the default)', () => {
  let t: TestEmulator;
  before(async () => {
    t = await TestEmulator.start(orgSeed({ rateLimit: 5 }));
  });
  after(() => t.close());

  it('refuses a request while the limit was let through in the second before it; a slot frees as each request ages out', async (context) => {
    context.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-03-01T12:00:00.000Z') });
    const get = (): Promise<RawResponse> => t.call('GET', '/organizations/org/policies');
    const seen: Array<[number, string | null, string | null]> = [];
    const step = async (ms: number): Promise<void> => {
      context.mock.timers.tick(ms);
      const res = await get();
      seen.push([res.status, res.headers.get('x-ratelimit-remaining'), res.headers.get('x-ratelimit-reset')]);
    };
    await step(0);
    for (let i = 0; i < 5; i += 1) await step(100); // t = 100 .. 500
    await step(499); // t = 999
    await step(1); //   t = 1000: the request of t = 0 has aged out, one slot
    await step(50); //  t = 1050: the window still holds 200 .. 1000 (a fixed window would have started afresh at 1000)
    await step(50); //  t = 1100: the request of t = 100 has aged out
    assert.deepEqual(seen, [
      [200, '4', '1.000'], [200, '3', '0.900'], [200, '2', '0.800'], [200, '1', '0.700'], [200, '0', '0.600'],
      [429, '0', '0.500'], [429, '0', '0.001'],
      [200, '0', '0.100'], [429, '0', '0.050'], [200, '0', '0.100'],
    ]);
  });

  it('GET /ping answers 204 with the rate-limit headers and counts against the limit', async (context) => {
    context.mock.timers.enable({ apis: ['Date'], now: Date.parse('2026-03-01T13:00:00.000Z') });
    const ping = await t.call('GET', '/ping');
    assert.equal(ping.status, 204);
    assert.equal(ping.text, '');
    assert.deepEqual([ping.headers.get('x-ratelimit-limit'), ping.headers.get('x-ratelimit-remaining'), ping.headers.get('x-ratelimit-reset')], ['5', '4', '1.000']);
    for (let i = 0; i < 4; i += 1) await t.call('GET', '/ping');
    assert.equal((await t.call('GET', '/ping')).status, 429);
    assert.equal((await t.call('GET', '/ping', { token: 'wrong' })).status, 401);
  });
});
