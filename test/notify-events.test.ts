import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { createDaemonMetrics } from '../src/daemon/index.js';
import { silentLogger } from '../src/logger.js';
import { SIGNATURE_HEADER } from '../src/notify/index.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { TestEmulator } from './helpers/emulator.js';
import { publishedSchema } from './helpers/published-schema.js';
import { startReceiver } from './helpers/receiver.js';
import { REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const SECRET = 'hmac-Secret-7';

test('every event reaches a signed webhook and Slack, once per failure streak, with metrics; no secret shows', async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const dir = await tempTree(t, smallRepo());
  const metrics = createDaemonMetrics({ defaultMetrics: false });
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger() });
  t.after(() => api.close());
  const hook = await startReceiver(t);
  const slack = await startReceiver(t);
  const { daemon, get, logs } = await startTestDaemon(t, {
    sources: [testSource('main', { path: dir, prune: true, maxDeletes: 0 })],
    api,
    metrics,
    env: { HOOK_URL: `${hook.url}/hook`, HOOK_SECRET: SECRET, SLACK_URL: `${slack.url}/services/T0/B0/xyz` },
    notifications: [
      { name: 'ops', type: 'webhook', urlEnv: 'HOOK_URL', urlFile: null, secretEnv: 'HOOK_SECRET', events: null, sources: null, statusUrl: null },
      { name: 'chat', type: 'slack', urlEnv: 'SLACK_URL', urlFile: null, secretEnv: null, events: ['failed', 'recovered'], sources: ['main'], statusUrl: null },
    ],
  });
  const events = () => hook.received.map((r) => r.json.event as string);
  const settle = async (count: number, what: string) => {
    await daemon.whenIdle();
    await waitFor(what, () => (hook.received.length >= count ? true : undefined));
    assert.equal(hook.received.length, count, `${what}: ${events().join(', ')}`);
  };

  await settle(1, 'applied');
  assert.deepEqual(events(), ['applied']);
  const applied = hook.received[0]!;
  assert.equal(applied.headers[SIGNATURE_HEADER], `sha256=${createHmac('sha256', SECRET).update(applied.body).digest('hex')}`);
  assert.equal(applied.json.version, 1);
  assert.equal(applied.json.source, 'main');
  assert.match(applied.json.summary, /source "main" \(example-org\) applied 5 changes/);
  assert.ok(applied.json.changes.some((c: { name: string; outcome: string }) => c.name === 'require-tags' && c.outcome === 'applied'));

  const policy = (await emulator.policies()).find((p) => p.name === 'require-tags')!;
  await emulator.call('PATCH', `/policies/${policy.id}`, { body: { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } } });
  daemon.trigger('main', 'schedule');
  await settle(2, 'drift');
  assert.equal(events()[1], 'drift');
  assert.match(hook.received[1]!.json.summary, /found drift and repaired 1 change/);

  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'enforcement-level: [not, a, level]\n');
  await settle(3, 'failed');
  daemon.trigger('main', 'schedule');
  await daemon.whenIdle();
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'description: Back.\n');
  await settle(5, 'recovered');
  assert.deepEqual(events().slice(2), ['failed', 'recovered', 'applied'], 'the repeated failure notified once');

  await rm(path.join(dir, 'policies/cost/audit-only.native'));
  await settle(6, 'guard');
  assert.equal(events()[5], 'guard');
  await writeFile(path.join(dir, 'policies/cost/audit-only.native'), 'main = rule { true }\n');
  await settle(7, 'recovered after the guard');

  const limit = (await emulator.policies()).find((p) => p.name === 'limit-size')!;
  const foreign = 'Someone else\'s.\n\n<!-- managed-by: policy-pool-sync source=other -->';
  await emulator.call('PATCH', `/policies/${limit.id}`, { body: { data: { type: 'policies', attributes: { description: foreign, 'enforcement-level': 'advisory' } } } });
  daemon.trigger('main', 'schedule');
  await settle(8, 'conflict');
  assert.equal(events()[7], 'conflict');
  assert.match(hook.received[7]!.json.summary, /conflict with another source/);

  // Slack takes failed and recovered only: the guard and the conflict are events of their own.
  await waitFor('slack', () => (slack.received.length >= 3 ? true : undefined));
  const firstLines = slack.received.map((r) => String(r.json.text).split('\n')[0]);
  assert.equal(firstLines.length, 3, firstLines.join('\n'));
  assert.match(firstLines[0]!, / failed: /);
  assert.match(firstLines[1]!, / recovered: the pass succeeded after failures$/);
  assert.match(firstLines[2]!, / recovered: /);
  assert.match(slack.received[0]!.json.text, /^policy-pool-sync: source "main" \(example-org\) failed: /);
  assert.equal(slack.received[0]!.path, '/services/T0/B0/xyz');

  // schemas/notification.schema.json describes every body.
  const validate = publishedSchema('notification');
  for (const r of hook.received) assert.ok(validate(r.json), `${r.json.event}: ${JSON.stringify(validate.errors)}`);

  const exposition = parseExposition(await (await get('/metrics')).text());
  assert.equal(sampleValue(exposition, 'policy_pool_sync_notifications_total', { receiver: 'ops', event: 'drift', result: 'sent' }), 1);
  assert.equal(sampleValue(exposition, 'policy_pool_sync_notifications_total', { receiver: 'chat', event: 'recovered', result: 'sent' }), 2);
  assert.equal(sampleValue(exposition, 'policy_pool_sync_notifications_total', { receiver: 'chat', event: 'conflict', result: 'sent' }), undefined);
  const everything = `${logs.text()}${JSON.stringify(await (await get('/status?history=1')).json())}${await (await get('/metrics')).text()}`;
  for (const secret of [SECRET, slack.url, hook.url, '/services/T0/B0/xyz']) assert.ok(!everything.includes(secret), `${secret} leaked`);
});
