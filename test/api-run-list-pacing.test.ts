/**
 * The run lists at their documented 30 requests a minute, on a pacer of their own: on a virtual clock, never more
 * than the window allows, the first ones at once; against the emulator at the real limits (30 a minute on the lists,
 * 30 a second elsewhere), by events: no 429, a policy request made while the lists wait for their minute is answered
 * at once, and an evidence read whose time budget ends is partial, with what it read, never waiting out the minute.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readEvidence } from '../src/api/evidence.js';
import { Pacer } from '../src/api/pacer.js';
import { startApiFixture, TOKEN } from './helpers/api-fixture.js';
import { VirtualClock } from './helpers/virtual-clock.js';
import { waitFor } from './helpers/wait.js';

const MINUTE = 60_000;

describe('the run lists\' pacer', () => {
  it('takes x-ratelimit-limit per minute: one probe, then at once what the minute has left, never more than it allows', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 'auto', { windowMs: MINUTE, burst: true });
    const starts: number[] = [];
    for (let i = 0; i < 70; i += 1) void pacer.acquire().then(() => starts.push(clock.now()));
    await clock.advance(0);
    assert.equal(starts.length, 1, 'before any answer, one request: another client may have spent the minute');
    pacer.observe({ limit: 30, remaining: 29, resetSeconds: 60 }, 0);
    await clock.advance(0);
    const first = starts.length;
    assert.ok(first >= 25 && first <= 29, `${first} started at once`);
    await clock.runUntilIdle();
    assert.equal(starts.length, 70);
    for (const [i, from] of starts.entries()) {
      const inWindow = starts.slice(i).filter((t) => t < from + MINUTE).length;
      assert.ok(inWindow <= 30, `${inWindow} starts in the minute from ${from}`);
    }
    assert.ok((starts.at(-1) ?? 0) <= 3 * MINUTE, `the last started at ${starts.at(-1)} ms`);
  });

  it('waits out a minute another client spent: an answer with nothing left holds every start until its reset', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 'auto', { windowMs: MINUTE, burst: true });
    const starts: number[] = [];
    for (let i = 0; i < 3; i += 1) void pacer.acquire().then(() => starts.push(clock.now()));
    await clock.advance(0);
    pacer.observe({ limit: 30, remaining: 0, resetSeconds: 42 }, 0);
    await clock.runUntilIdle();
    assert.equal(starts[0], 0);
    assert.ok((starts[1] ?? 0) >= 42_000, `the next started at ${starts[1]} ms, before the reset`);
  });

  it('starts no more than the last answer left before its reset', async () => {
    const clock = new VirtualClock();
    const pacer = new Pacer(clock, 'auto', { windowMs: MINUTE, burst: true });
    const starts: number[] = [];
    for (let i = 0; i < 6; i += 1) void pacer.acquire().then(() => starts.push(clock.now()));
    await clock.advance(0);
    pacer.observe({ limit: 30, remaining: 2, resetSeconds: 42 }, 0);
    await clock.advance(41_000);
    assert.equal(starts.length, 3, 'the probe and the two the answer left');
    await clock.runUntilIdle();
    assert.ok((starts[3] ?? 0) >= 42_000, `the fourth started at ${starts[3]} ms, before the reset`);
  });
});

describe('run lists against the emulator at the real limits', () => {
  it('keep to 30 a minute without a 429, hold no policy request, and end partial when the read\'s time is spent', { timeout: 60_000 }, async () => {
    const workspaces = Array.from({ length: 40 }, (_, i) => ({ id: `ws-w${String(i).padStart(3, '0')}`, name: `w${String(i).padStart(3, '0')}` }));
    const f = await startApiFixture({ token: TOKEN, rateLimit: 30, runListRateLimit: 30, organizations: [{ name: 'acme', workspaces }] });
    try {
      let evidenceDone = false;
      const reading = readEvidence(f.client.runs, { organization: 'acme', workspaces, policies: ['p'], listing: 'workspace', maxMs: 3_000 }).finally(() => (evidenceDone = true));
      const lists = async () => (await f.emulator.requests()).filter((r) => /\/runs(\?|$)/.test(r.path));
      // The lists take what the minute allows at once, then wait for it.
      await waitFor('the first minute\'s lists', async () => ((await lists()).length >= 25 ? true : undefined));
      await f.client.listPolicies('acme');
      assert.equal(evidenceDone, false, 'a policy request is not held behind the lists waiting for their minute');
      const readout = await reading;
      assert.equal(readout.partial, true);
      const sent = await lists();
      assert.ok(sent.length < 30 && sent.length === readout.requests, `${sent.length} lists, ${readout.requests} requests`);
      assert.deepEqual([...new Set(sent.map((r) => r.status))], [200], 'no 429: the lists kept to their minute');
      assert.equal(readout.workspaces.filter((w) => w.runsInWindow !== null).length, sent.length, 'what was read is kept');
    } finally {
      await f.close();
    }
  });
});

describe('the emulator\'s run lists', () => {
  it('answer 429 past their own limit a minute, announced in x-ratelimit-limit, whatever the limit of a second allows', async () => {
    const f = await startApiFixture({ token: TOKEN, rateLimit: 30, runListRateLimit: 2, organizations: [{ name: 'acme', workspaces: [{ id: 'ws-one', name: 'one' }] }] });
    try {
      const answers = [];
      for (const path of ['/workspaces/ws-one/runs', '/organizations/acme/runs', '/workspaces/ws-one/runs']) answers.push(await f.emulator.call('GET', path));
      assert.deepEqual(answers.map((a) => [a.status, a.headers.get('x-ratelimit-limit')]), [[200, '2'], [200, '2'], [429, '2']]);
      const reset = Number(answers[2]?.headers.get('x-ratelimit-reset'));
      assert.ok(reset > 1 && reset <= 60, `reset ${reset} s: the minute's, not a second's`);
      const other = await f.emulator.call('GET', '/organizations/acme/policies');
      assert.deepEqual([other.status, other.headers.get('x-ratelimit-limit')], [200, '30'], 'other endpoints keep their own limit');
    } finally {
      await f.close();
    }
  });
});
