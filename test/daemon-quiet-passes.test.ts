/** An idle daemon says that its source is in sync once, then once per quiet hour: passes that change nothing are debug lines. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';

interface Line {
  level: number;
  msg: string;
  passes?: number;
}

test('passes that change nothing log no info line, but once per quiet hour (injected clock)', { timeout: 120_000 }, async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: captureLogs().logger });
  t.after(() => api.close());
  let now = Date.parse('2026-11-25T10:00:00Z');
  // `policy-sets: []` makes every plan carry one warning: logged once, it does not make each pass say something.
  const dir = await tempTree(t, { 'policies/idle.native': 'main = rule { true }\n', 'policies/idle.yaml': 'policy-sets: []\n' });
  const { daemon, logs } = await startTestDaemon(t, { sources: [testSource('idle', { organization: ORG, path: dir })], api, now: () => new Date(now) });
  await daemon.whenIdle();
  const lines = () => logs.lines.map((l) => JSON.parse(l) as Line);
  assert.equal(lines().filter((l) => l.msg === 'plan warning').length, 1, 'the plan warns');
  const infoSince = (from: number) => lines().slice(from).filter((l) => l.level >= 30);
  const pass = async (minutes: number) => {
    now += minutes * 60_000;
    const from = logs.lines.length;
    daemon.trigger('idle', 'schedule');
    await daemon.whenIdle();
    return infoSince(from);
  };

  // The start-up pass created the policy: said at info. The next finds the API in sync, and says so once.
  const inSync = await pass(1);
  assert.deepEqual(inSync.map((l) => l.msg), ['pass finished'], 'the first pass in sync is said');
  for (let minute = 0; minute < 5; minute += 1) {
    const quiet = await pass(1);
    assert.deepEqual(quiet.map((l) => l.msg), [], `a quiet pass logs nothing at info: ${JSON.stringify(quiet)}`);
  }
  assert.ok(lines().filter((l) => l.level === 20 && l.msg === 'pass finished').length >= 5, 'each quiet pass is a debug line');
  const hourly = await pass(60);
  assert.equal(hourly.length, 1, JSON.stringify(hourly));
  assert.match(hourly[0]?.msg ?? '', /^still in sync: 6 passes in the last hour changed nothing$/);
  assert.deepEqual((await pass(1)).map((l) => l.msg), [], 'then quiet again for an hour');

  // A pass that does something is said at info again.
  await emulator.call('DELETE', `/policies/${(await emulator.policies()).find((p) => p.name === 'idle')?.id ?? ''}`);
  const repaired = await pass(1);
  assert.ok(repaired.some((l) => l.msg === 'pass finished'), JSON.stringify(repaired));
});
