import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { NotLeaderError } from '../src/errors.js';
import type { Elector } from '../src/leader/index.js';
import { createFightDetector } from '../src/operations/fight-detector.js';
import type { Change, ChangeResult, PoolChange } from '../src/plan/types.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

test('two daemons syncing one organization from different repos: the fight is named on /status, in the log and as a metric', { timeout: 60_000 }, async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: captureLogs().logger });
  t.after(() => api.close());
  // The same source in both (a rolling update with version skew, or a copy left running), each with its own repo.
  const ours = await tempTree(t, { 'policies/contested.native': 'main = rule { true }\n', 'policies/calm.native': 'main = rule { 1 }\n' });
  const theirs = await tempTree(t, { 'policies/contested.native': 'main = rule { false }\n', 'policies/calm.native': 'main = rule { 1 }\n' });
  const a = await startTestDaemon(t, { sources: [testSource('platform', { organization: ORG, path: ours })], api });
  await a.daemon.whenIdle();
  const b = await startTestDaemon(t, { sources: [testSource('platform', { organization: ORG, path: theirs })], api });
  await b.daemon.whenIdle();

  const fighting = async () => ((await (await a.get('/status')).json()) as { sources: Array<{ fighting: string[] }> }).sources[0]?.fighting;
  const round = async () => {
    for (const daemon of [b.daemon, a.daemon]) {
      daemon.trigger('platform', 'schedule');
      await daemon.whenIdle();
    }
  };
  a.daemon.trigger('platform', 'schedule');
  await a.daemon.whenIdle(); // updates the code B uploaded
  await round(); // finds that update undone once
  assert.deepEqual(await fighting(), [], 'undone once may be a person fixing something by hand');
  await round(); // and again

  const warnings = (await fighting()) ?? [];
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(warnings[0] ?? '', /^policy "contested" is fought over: the update \(code\) this source applied was undone 2 times in the last 60 minutes\. Another writer/);
  assert.match(warnings[0] ?? '', /run one replica per organization/);
  assert.ok(a.logs.lines.some((line) => line.includes('policy \\"contested\\" is fought over')), 'logged');
  const metrics = parseExposition(await (await a.get('/metrics')).text());
  assert.equal(sampleValue(metrics, 'policy_pool_sync_fighting_resources', { source: 'platform' }), 1);
});

test('a steady fight stays named over passes that find nothing to do, for an hour after the last undo (injected clock)', () => {
  let now = new Date('2026-11-25T10:00:00Z');
  const minutes = (m: number) => (now = new Date(Date.parse('2026-11-25T10:00:00Z') + m * 60_000));
  const detector = createFightDetector(() => now);
  const contested: PoolChange = { resource: 'agent-pool', name: 'contested', id: 'apool-1', action: 'update', reason: 'differs in name', fields: {}, declared: null, live: null };
  const applied = (change: Change): ChangeResult[] => [{ change, outcome: 'applied', message: null }];
  const pass = (at: number, planned: Change[], results: ChangeResult[] = planned.flatMap(applied)) => {
    minutes(at);
    return detector.observe(planned, results).map((f) => [f.name, f.undone]);
  };
  assert.deepEqual(pass(0, [contested]), [], 'applied');
  assert.deepEqual(pass(5, [contested]), [], 'undone once: may be a person');
  assert.deepEqual(pass(6, []), [], 'nothing to do: the other writer has not run yet');
  assert.deepEqual(pass(10, [contested]), [['contested', 2]], 'undone twice within the hour');
  assert.deepEqual(pass(11, []), [['contested', 2]], 'a pass with nothing to do does not end the fight');
  assert.deepEqual(pass(12, []), [['contested', 2]]);
  assert.deepEqual(pass(15, [contested]), [['contested', 3]]);
  // In a closed window the same change is planned at every pass and never applied: one undo, not one per pass.
  assert.deepEqual(pass(20, [contested], []), [['contested', 4]]);
  assert.deepEqual(pass(25, [contested], []), [['contested', 4]]);
  // The other writer stopped: an hour after the undos, the fight is no longer named.
  assert.deepEqual(pass(71, []), [['contested', 2]], 'the undos of minutes 5 and 10 are older than an hour');
  assert.deepEqual(pass(81, []), []);
});

/** An election the test hands over by hand: `lead(true)` elects this replica, `lead(false)` makes it stand by. */
function handElection(identity: string): { elector: Elector; lead(now: boolean): void } {
  let leading = false;
  const listeners: ((leading: boolean) => void)[] = [];
  const elector: Elector = {
    identity, leader: null, storeReached: true, leaderAddress: null, standingAside: null,
    get leading() {
      return leading;
    },
    fence() {
      if (!leading) throw new NotLeaderError(`${identity} does not hold the lease`);
    },
    onLeadingChange: (listener) => listeners.push(listener),
    advertise: () => undefined,
    start: () => undefined,
    stop: () => Promise.resolve(),
  };
  return { elector, lead: (now) => { leading = now; for (const listener of listeners) listener(now); } };
}

test('replicas of one deployment taking turns are no fight: what the other replica wrote after a handover is not an undo', { timeout: 60_000 }, async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: captureLogs().logger });
  t.after(() => api.close());
  // The repo moves back and forth between two versions while the lease changes hands: each leader applies its own.
  const first = await tempTree(t, { 'policies/contested.native': 'main = rule { true }\n' });
  const second = await tempTree(t, { 'policies/contested.native': 'main = rule { false }\n' });
  const a = handElection('replica-a');
  const b = handElection('replica-b');
  const daemonA = await startTestDaemon(t, { sources: [testSource('platform', { organization: ORG, path: first })], api, election: a.elector });
  const daemonB = await startTestDaemon(t, { sources: [testSource('platform', { organization: ORG, path: second })], api, election: b.elector });
  const term = async (leader: typeof a, daemon: typeof daemonA) => {
    leader.lead(true);
    await daemon.daemon.whenIdle();
    leader.lead(false);
  };
  for (let i = 0; i < 3; i += 1) {
    await term(a, daemonA);
    await term(b, daemonB);
  }
  await term(a, daemonA);
  const status = ((await (await daemonA.get('/status')).json()) as { sources: Array<{ fighting: string[]; lastPass: { changes: unknown[] } }> }).sources[0];
  assert.equal(status?.lastPass.changes.length, 1, 'each term applied its version');
  assert.deepEqual(status?.fighting, []);
  assert.ok(!daemonA.logs.lines.some((line) => line.includes('fought over')));
});

test('a new leader passes again once the old leader\'s requests on the wire can no longer land, in each term', { timeout: 60_000 }, async (t) => {
  const { calls, pass } = recordingPass();
  const a = handElection('replica-a');
  const daemon = await startTestDaemon(t, { sources: [testSource('platform', { path: await tempTree(t, {}) })], pass, election: a.elector, takeoverSettleMs: 50 });
  a.lead(true);
  await waitFor('the takeover pass', () => (calls.some((c) => c.trigger === 'takeover') ? true : undefined));
  a.lead(false);
  await daemon.daemon.whenIdle();
  a.lead(true);
  await waitFor('the second term\'s takeover pass', () => (calls.filter((c) => c.trigger === 'takeover').length === 2 ? true : undefined));
  assert.deepEqual(calls.map((c) => c.trigger), ['start-up', 'takeover', 'start-up', 'takeover']);
});
