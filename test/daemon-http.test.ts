import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { createDaemonMetrics, type SourceStatus } from '../src/daemon/index.js';
import { silentLogger } from '../src/logger.js';
import { TestEmulator } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';

async function statuses(get: (p: string) => Promise<Response>): Promise<SourceStatus[]> {
  const response = await get('/status');
  assert.equal(response.status, 200);
  return ((await response.json()) as { sources: SourceStatus[] }).sources;
}

test('the real pass in-process: /metrics exposes every family, fed by the API client; /status shows the result', async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const dir = await tempTree(t, smallRepo());
  const metrics = createDaemonMetrics();
  const api = new ApiClient({
    baseUrl: emulator.url, token: emulator.token, logger: silentLogger(),
    onRequest: (r) => metrics.apiRequest(r), onRateLimitWait: (s) => metrics.rateLimitWait(s),
  });
  t.after(() => api.close());
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: dir })], api, metrics });
  await waitFor('the start-up pass', async () => ((await statuses(get))[0]?.result === 'success' ? true : undefined));

  const response = await get('/metrics');
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const exposition = parseExposition(await response.text());
  const families: [string, string][] = [
    ['policy_pool_sync_passes_total', 'counter'],
    ['policy_pool_sync_pass_duration_seconds', 'histogram'],
    ['policy_pool_sync_api_requests_total', 'counter'],
    ['policy_pool_sync_rate_limit_wait_seconds_total', 'counter'],
    ['policy_pool_sync_drift', 'gauge'],
    ['policy_pool_sync_last_success_timestamp_seconds', 'gauge'],
    ['process_cpu_seconds_total', 'counter'],
    ['process_resident_memory_bytes', 'gauge'],
  ];
  for (const [name, type] of families) assert.equal(exposition.type.get(name), type, name);
  assert.equal(sampleValue(exposition, 'policy_pool_sync_passes_total', { source: 'main', result: 'success' }), 1);
  assert.equal(sampleValue(exposition, 'policy_pool_sync_passes_total', { source: 'main', result: 'failure' }), 0);
  assert.equal(sampleValue(exposition, 'policy_pool_sync_pass_duration_seconds_count', { source: 'main' }), 1);
  assert.equal(sampleValue(exposition, 'policy_pool_sync_drift', { source: 'main' }), 5, 'four policies and a pool were created');
  // Policies are created with 200 (docs/api-behaviour.md, Statuses), uploads are PUT.
  assert.ok((sampleValue(exposition, 'policy_pool_sync_api_requests_total', { method: 'POST', status: '200' }) ?? 0) >= 2);
  assert.ok((sampleValue(exposition, 'policy_pool_sync_api_requests_total', { method: 'PUT', status: '200' }) ?? 0) >= 2);
  assert.ok((sampleValue(exposition, 'policy_pool_sync_api_requests_total', { method: 'GET', status: '200' }) ?? 0) >= 1);
  const lastSuccess = sampleValue(exposition, 'policy_pool_sync_last_success_timestamp_seconds', { source: 'main' }) ?? 0;
  assert.ok(Math.abs(lastSuccess - Date.now() / 1000) < 60);
  assert.ok(!(await (await get('/metrics')).text()).includes(emulator.token), 'the token is in no metric');

  // A second pass finds nothing to do: drift 0.
  daemon.trigger('main', 'schedule');
  await waitFor('the second pass', async () => ((await statuses(get))[0]?.lastTrigger === 'schedule' && !(await statuses(get))[0]?.running ? true : undefined));
  await daemon.whenIdle();
  const after = parseExposition(await (await get('/metrics')).text());
  assert.equal(sampleValue(after, 'policy_pool_sync_drift', { source: 'main' }), 0);
  assert.equal(sampleValue(after, 'policy_pool_sync_passes_total', { source: 'main', result: 'success' }), 2);

  const [status] = await statuses(get);
  assert.equal(status?.name, 'main');
  assert.equal(status?.organization, 'example-org');
  assert.equal(status?.kind, 'path');
  assert.equal(status?.result, 'success');
  assert.equal(status?.error, null);
  assert.equal(status?.running, false);
  assert.equal(status?.apiReached, true);
  assert.equal(status?.lastAppliedRevision, null, 'a local folder has no revision');
  assert.ok(status?.nextRunAt !== null && Date.parse(status?.nextRunAt ?? '') > Date.now(), 'the next scheduled run is in the future');
  assert.ok(Date.parse(status?.lastRunAt ?? '') <= Date.now());
});

test('Node\'s own metrics are made once per process: a second daemon\'s registry serves the same ones, so one event loop monitor samples, not one a daemon', async () => {
  const [first, second] = [createDaemonMetrics(), createDaemonMetrics()];
  const lag = 'nodejs_eventloop_lag_seconds';
  assert.ok(first.registry.getSingleMetric(lag) !== undefined, 'the default metrics are there');
  assert.equal(second.registry.getSingleMetric(lag), first.registry.getSingleMetric(lag));
  assert.notEqual(second.registry.getSingleMetric('policy_pool_sync_passes_total'), first.registry.getSingleMetric('policy_pool_sync_passes_total'), 'each daemon counts its own passes');
  assert.equal(createDaemonMetrics({ defaultMetrics: false }).registry.getSingleMetric(lag), undefined);
});

test('/readyz is 503 until every source finished a pass, 200 after; /healthz is always 200', async (t) => {
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  // Registered before the daemon's own teardown, so a failed assertion ends the held pass and the test ends.
  t.after(() => release());
  const { pass } = recordingPass(async () => {
    await gate;
    return true;
  });
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass });
  assert.equal((await get('/healthz')).status, 200);
  const notReady = await get('/readyz');
  assert.equal(notReady.status, 503);
  assert.equal(await notReady.text(), 'unready\n', 'a status and a word, never a source name or an error');
  assert.equal((await statuses(get))[0]?.running, true);
  release();
  await daemon.whenIdle();
  assert.equal((await get('/readyz')).status, 200);
  assert.equal((await get('/nope')).status, 404);
  assert.equal((await get('/webhook')).status, 405);
});

test('/readyz is 503 when the git repository cannot be fetched; /status names it and keeps credentials out', async (t) => {
  const { pass, calls } = recordingPass();
  const git = { url: 'https://user:hunter2@127.0.0.1:1/acme/policies.git', ref: 'main', path: '.' };
  const { get, daemon, logs } = await startTestDaemon(t, { sources: [testSource('remote', { git })], pass });
  await daemon.whenIdle();
  assert.equal(calls.length, 0, 'no pass without a checkout');
  const response = await get('/readyz');
  assert.equal(response.status, 503);
  assert.equal(await response.text(), 'unready\n');
  const [status] = await statuses(get);
  assert.match(status?.error ?? '', /git fetch of https:\/\/\*\*\*@127\.0\.0\.1:1\/acme\/policies\.git/);
  assert.equal(status?.result, 'failure');
  assert.equal(status?.gitReached, false);
  assert.ok(status?.nextRunAt !== null, 'a retry is scheduled');
  assert.ok(!JSON.stringify(status).includes('hunter2'));
  assert.ok(!logs.text().includes('hunter2'), 'the git password is in no log line');
  assert.ok(!(await (await get('/metrics')).text()).includes('hunter2'));
});

test('an edited file of a local source triggers a pass after the debounce; a burst of edits makes one pass', async (t) => {
  const dir = await tempTree(t, smallRepo());
  const { pass, calls } = recordingPass();
  const { daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: dir })], pass });
  await daemon.whenIdle();
  // The burst is written synchronously, so however busy the machine, it lands well inside one debounce window.
  for (let i = 0; i < 5; i += 1) writeFileSync(path.join(dir, 'policies/security/require-tags.native'), `main = rule { ${i} > -1 }\n`);
  rmSync(path.join(dir, 'policies/storage'), { recursive: true });
  await waitFor('a file-change pass', () => (calls.some((c) => c.trigger === 'file-change') ? true : undefined));
  // A sync asked for now runs after any other pass the burst started, or joins one it queued.
  daemon.trigger('main', 'sync');
  await waitFor('the sync pass', () => (calls.some((c) => c.trigger === 'sync') ? true : undefined));
  await daemon.whenIdle();
  assert.deepEqual(calls.map((c) => c.trigger), ['start-up', 'file-change', 'sync']);
  await writeFile(path.join(dir, '.hidden-notes'), 'x');
  await writeFile(path.join(dir, '.syncignore'), 'policies/storage/\n');
  await waitFor('a pass for .syncignore', () => (calls.length === 4 ? true : undefined));
  assert.equal(calls[3]?.trigger, 'file-change');
});

test('a pass that throws (a bug, not a finding about the source) fails with its message on /status and its stack in the log', async (t) => {
  const pass = async function plannerWithABug(): Promise<never> {
    throw new TypeError('cannot read properties of undefined (reading "changes")');
  };
  const { get, daemon, logs } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass });
  await daemon.whenIdle();
  const [status] = await statuses(get);
  assert.equal(status?.result, 'failure');
  assert.equal(status?.error, 'cannot read properties of undefined (reading "changes")');
  const line = logs.text().split('\n').find((l) => l.includes('"pass threw"'));
  assert.ok(line !== undefined, 'the throw is logged');
  assert.match((JSON.parse(line) as { stack: string }).stack, /TypeError: cannot read properties[\s\S]*at (Object\.)?plannerWithABug/);
});
