import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { windowState } from '../src/daemon/sync-windows.js';
import { silentLogger } from '../src/logger.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { TestEmulator } from './helpers/emulator.js';
import { startReceiver } from './helpers/receiver.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

/** Friday evenings from 22:00 Berlin time, for two hours (Berlin is UTC+1 in November). */
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
