import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { openSyncWindows, windowProblem, windowState } from '../src/operations/sync-windows.js';
import { silentLogger } from '../src/logger.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { runCli } from './helpers/cli.js';
import { TestEmulator } from './helpers/emulator.js';
import { startReceiver } from './helpers/receiver.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

/** Friday evenings from 22:00 Berlin time, for two hours (Berlin is UTC+1 in November). */
const CONTROL = 'control-token-of-the-test';
const FRIDAY_FREEZE = { kind: 'deny' as const, schedule: '0 22 * * 5', durationMinutes: 120, timezone: 'Europe/Berlin' };

test('windows follow their cron schedule, duration and time zone; allow windows close everything else', () => {
  const at = (iso: string) => windowState([FRIDAY_FREEZE], new Date(iso));
  assert.equal(at('2026-11-27T20:59:00Z').closed, false, '21:59 in Berlin');
  assert.equal(at('2026-11-27T21:00:00Z').closed, true, '22:00 in Berlin');
  assert.equal(at('2026-11-27T22:59:59Z').closed, true, '23:59 in Berlin');
  assert.equal(at('2026-11-27T23:00:00Z').closed, false, 'midnight in Berlin: two hours later');
  assert.equal(at('2026-11-26T21:30:00Z').closed, false, 'a Thursday');
  assert.match(at('2026-11-27T21:30:00Z').reason ?? '', /deny "0 22 \* \* 5" for 120 min \(Europe\/Berlin\)/);
  const office = [{ kind: 'allow' as const, schedule: '0 9 * * mon-fri', durationMinutes: 8 * 60, timezone: 'UTC' }];
  assert.equal(windowState(office, new Date('2026-11-23T10:00:00Z')).closed, false);
  assert.equal(windowState(office, new Date('2026-11-23T17:00:00Z')).closed, true);
  assert.equal(windowState(office, new Date('2026-11-28T10:00:00Z')).closed, true, 'a Saturday');
  assert.equal(windowState([], new Date()).closed, false);
});

test('in a closed window a pass plans, applies nothing and notifies once; sync --override-window applies and says so', async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger() });
  t.after(() => api.close());
  const hook = await startReceiver(t);
  let now = new Date('2026-11-27T21:30:00Z');
  const dir = await tempTree(t, smallRepo());
  const { daemon, get, logs } = await startTestDaemon(t, {
    sources: [testSource('main', { path: dir, syncWindows: [FRIDAY_FREEZE] })],
    api,
    now: () => now,
    env: { HOOK: hook.url, CONTROL_TOKEN: 'ctl-token-0123456789' },
    notifications: [{ name: 'ops', type: 'webhook', urlEnv: 'HOOK', urlFile: null, secretEnv: null, events: null, sources: null, statusUrl: null }],
  });
  await daemon.whenIdle();
  const status = async () => ((await (await get('/status')).json()) as { sources: Array<Record<string, any>> }).sources[0]!;
  const held = await status();
  assert.equal(held.result, 'success');
  assert.equal(held.waitingForWindow, 5);
  assert.equal(held.syncWindow.closed, true);
  assert.deepEqual((await emulator.policies()).map((p) => p.name), [], 'nothing applied');
  assert.ok(logs.messages().includes('5 changes waiting for the window'));
  assert.match(await (await get('/status.html')).text(), /<b>5<\/b> waiting for the sync window/);
  daemon.trigger('main', 'schedule');
  await daemon.whenIdle();
  await waitFor('the window event', () => (hook.received.length >= 1 ? true : undefined));
  assert.deepEqual(hook.received.map((r) => r.json.event), ['window'], 'notified once');
  assert.match(hook.received[0]!.json.summary, /has 5 changes waiting for the sync window/);

  const plain = await fetch(`${daemon.origin}/sources/main/sync?wait=1`, { method: 'POST', headers: { authorization: 'Bearer ctl-token-0123456789' } });
  assert.equal(((await plain.json()) as { pass: { changes: { outcome: string }[] } }).pass.changes[0]?.outcome, 'not-applied', 'sync alone respects the window');
  const forced = await fetch(`${daemon.origin}/sources/main/sync?wait=1&override-window=1`, { method: 'POST', headers: { authorization: 'Bearer ctl-token-0123456789' } });
  assert.equal(forced.status, 200);
  const pass = ((await forced.json()) as { pass: { result: string; changes: { outcome: string }[] } }).pass;
  assert.equal(pass.result, 'success');
  assert.ok(pass.changes.every((c) => c.outcome === 'applied'));
  assert.equal((await emulator.policies()).length, 4);
  assert.ok(logs.messages().includes('the sync window is closed; applying anyway, as sync --override-window asked'));
  await waitFor('the applied event', () => (hook.received.length >= 2 ? true : undefined));
  assert.equal(hook.received[1]!.json.event, 'applied');
  assert.equal(hook.received[1]!.json.overrideWindow, true);
  assert.match(hook.received[1]!.json.summary, /\(the sync window was overridden\)/);

  // Past the window, drift is repaired again.
  now = new Date('2026-11-27T23:00:00Z');
  const policy = (await emulator.policies()).find((p) => p.name === 'require-tags')!;
  await emulator.call('PATCH', `/policies/${policy.id}`, { body: { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } } });
  daemon.trigger('main', 'schedule');
  await daemon.whenIdle();
  const open = await status();
  assert.equal(open.syncWindow.closed, false);
  assert.equal(open.waitingForWindow, null);
  await waitFor('the drift event', () => (hook.received.length >= 3 ? true : undefined));
  assert.equal(hook.received[2]!.json.event, 'drift');
});

test('windows that never open are refused at start, naming the source and the window', async (t) => {
  const refused = [
    ['0 0 * * fri-mon', 60, /runs backwards \(5-1\)/],
    ['0 0 * * 5-1', 60, /runs backwards \(5-1\)/],
    ['0 23-1 * * *', 60, /runs backwards \(23-1\)/],
    ['0 0 31 2 *', 60, /never occurs/],
    ['0 22 * * 5', 0, /duration 0m: the window is never open/],
  ] as const;
  for (const [schedule, durationMinutes, message] of refused) {
    const window = { kind: 'deny' as const, schedule, durationMinutes, timezone: 'UTC' };
    await assert.rejects(
      startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t), syncWindows: [FRIDAY_FREEZE, window] })] }),
      (error: Error) => {
        assert.match(error.message, /^source "main": sync-windows\[1\]: /, schedule);
        assert.match(error.message, message, schedule);
        return true;
      },
    );
  }
  // The same weekend, written as a list of days, is accepted and is in force on Sunday.
  const weekend = { kind: 'deny' as const, schedule: '0 0 * * fri-sat,sun,mon', durationMinutes: 24 * 60, timezone: 'UTC' };
  assert.equal(windowProblem(weekend), null);
  assert.equal(windowState([weekend], new Date('2026-11-29T12:00:00Z')).closed, true, 'a Sunday');
  assert.equal(windowState([weekend], new Date('2026-11-25T12:00:00Z')).closed, false, 'a Wednesday');
});

test('a deny window starting at 02:30 Berlin time is in force on the day DST begins (from 03:00, the first minute after the gap)', () => {
  const night = [{ kind: 'deny' as const, schedule: '30 2 * * *', durationMinutes: 120, timezone: 'Europe/Berlin' }];
  // 2026-03-29: clocks go from 02:00 CET to 03:00 CEST; 02:30 does not exist that day.
  assert.equal(windowState(night, new Date('2026-03-29T00:59:00Z')).closed, false, '01:59 CET');
  assert.equal(windowState(night, new Date('2026-03-29T01:00:00Z')).closed, true, '03:00 CEST');
  assert.equal(windowState(night, new Date('2026-03-29T02:30:00Z')).closed, true, '04:30 CEST');
  assert.equal(windowState(night, new Date('2026-03-29T03:00:00Z')).closed, false, '05:00 CEST: two hours later');
  // The day before and after, at 02:30 local time as usual.
  assert.equal(windowState(night, new Date('2026-03-28T01:30:00Z')).closed, true, '02:30 CET the day before');
  assert.equal(windowState(night, new Date('2026-03-30T00:30:00Z')).closed, true, '02:30 CEST the day after');
  assert.equal(windowState(night, new Date('2026-03-30T00:29:00Z')).closed, false, '02:29 CEST the day after');
});

test('a window\'s state comes from its previous occurrence: a year-long window is in force with no walk through its minutes', () => {
  const year = [{ kind: 'deny' as const, schedule: '0 0 1 1 *', durationMinutes: 8760 * 60, timezone: 'Europe/Berlin' }];
  const windows = openSyncWindows(year);
  assert.equal(windows.state(new Date('2026-12-30T12:00:00Z')).closed, true);
  // From the 1st of January (Berlin) 2026, 8760 h later is 2026-12-31T23:00Z.
  assert.equal(windows.state(new Date('2026-12-31T22:59:00Z')).closed, true);
  assert.equal(windows.state(new Date('2026-12-31T23:00:00Z')).closed, true, 'the next year\'s window has begun');
  const once = [{ kind: 'deny' as const, schedule: '0 0 1 1 *', durationMinutes: 60, timezone: 'UTC' }];
  assert.equal(windowState(once, new Date('2026-01-01T00:59:00Z')).closed, true);
  assert.equal(windowState(once, new Date('2026-01-01T01:00:00Z')).closed, false);
});

test('sync --override-window while a webhook pass is queued: that pass applies, and the answer names it', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const { calls, pass } = recordingPass(async (call) => {
    if (call.trigger === 'start-up') await gate;
    return true;
  });
  const { daemon, logs } = await startTestDaemon(t, {
    sources: [testSource('main', { path: await tempTree(t), syncWindows: [FRIDAY_FREEZE] })], pass, now: () => new Date('2026-11-27T21:30:00Z'), env: { CONTROL_TOKEN: CONTROL },
  });
  await waitFor('the start-up pass', () => (calls.length === 1 ? true : undefined));
  daemon.trigger('main', 'webhook');
  const cli = runCli(['sync', '--daemon', daemon.origin, '--source', 'main', '--override-window'], { env: { CONTROL_TOKEN: CONTROL } });
  await waitFor('the sync request', () => (logs.messages().includes('sync asked for') ? true : undefined));
  // A plain sync asked for before that pass starts joins it, and does not cancel the override.
  const plain = await fetch(`${daemon.origin}/sources/main/sync`, { method: 'POST', headers: { authorization: `Bearer ${CONTROL}` } });
  assert.equal(plain.status, 202);
  release();
  const { code, stdout, stderr } = await cli;
  assert.equal(code, 0, stderr);
  assert.deepEqual(calls.map((c) => [c.trigger, c.mode]), [['start-up', 'plan'], ['webhook', 'apply']], 'the queued pass took the override');
  assert.match(stdout, /source "main": success, 0 changes applied; the sync window was overridden \(the webhook pass started 20\d\d-/);
  assert.ok(logs.messages().includes('the sync window is closed; applying anyway, as sync --override-window asked'));
  await daemon.whenIdle();
  assert.equal(calls.length, 2, 'one pass for the webhook and the sync together');
});

test('a source\'s window state is worked out once per minute, however often a probe asks', () => {
  let reads = 0;
  const counted = {
    kind: 'deny' as const, schedule: '0 18 * * 5', timezone: 'Europe/Berlin',
    get durationMinutes() {
      reads += 1;
      return 62 * 60;
    },
  };
  const windows = openSyncWindows([counted]);
  assert.equal(windows.state(new Date('2026-11-28T12:00:00Z')).closed, true);
  const once = reads;
  for (let second = 1; second < 60; second += 1) assert.equal(windows.state(new Date(Date.parse('2026-11-28T12:00:00Z') + second * 1000)).closed, true);
  assert.equal(reads, once, 'one computation for the minute');
  assert.equal(windows.state(new Date('2026-11-28T12:01:00Z')).closed, true);
  assert.ok(reads > once, 'and one more for the next');
});
