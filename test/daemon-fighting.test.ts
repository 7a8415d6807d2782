import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';

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
  assert.match(warnings[0] ?? '', /^policy "contested" is fought over: the update \(code\) this source applied was undone before each of the last 2 passes\. Another writer/);
  assert.match(warnings[0] ?? '', /run one replica per organization/);
  assert.ok(a.logs.lines.some((line) => line.includes('policy \\"contested\\" is fought over')), 'logged');
  const metrics = parseExposition(await (await a.get('/metrics')).text());
  assert.equal(sampleValue(metrics, 'policy_pool_sync_fighting_resources', { source: 'platform' }), 1);
});
