/**
 * A daemon whose API refuses connections says so at the first refused connection (on /status, at /readyz and in one
 * log line naming the host), keeps retrying, and stops at once on SIGTERM, since no write is under way.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const TOKEN = 'unreachable-token-Secret42';

test('a daemon whose API refuses connections says it at the first refused connection, and stops at once on SIGTERM', async (t) => {
  // The emulator's port, once it is closed: connections are refused.
  const closed = await TestEmulator.start();
  const url = closed.url;
  await closed.close();
  const host = new URL(url).host;
  // A retry budget and a shutdown grace far beyond the test's own bounds: the first pass never ends by itself, and
  // the daemon could only stop in time by not waiting for a pass that has nothing to finish.
  const daemon = await spawnDaemon(
    t,
    {
      api: { url, 'retry-budget': 3600 },
      'shutdown-timeout': 3600,
      sources: [{ name: 'local', organization: 'example-org', path: await tempTree(t, smallRepo()), schedule: '0 0 1 1 *' }],
    },
    // In CI too, a daemon's log stays JSON (these lines are read as JSON).
    { API_TOKEN: TOKEN, CI: 'true' },
  );
  const said = await waitFor('/status to say the API cannot be reached', async () => {
    const now = await status(daemon);
    return now.apiReached === false ? now : undefined;
  }, 30_000);
  assert.equal(said.lastRunAt, null, 'said while the first pass is still retrying');
  const escaped = url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  assert.match(said.error ?? '', new RegExp(`^cannot reach the API at ${escaped}: nothing accepts connections on ${host.replace('.', '\\.')} \\(connection refused\\)`));
  assert.equal((await daemon.get('/readyz')).status, 503);

  // Further refused requests, retried, say nothing more at warn level.
  await waitFor('several retries of a refused request', () => (daemon.logs().filter((l) => /failed.*retrying/.test(l.msg)).length >= 4 ? true : undefined), 30_000);
  const warnings = daemon.logs().filter((l) => l.level === 40 && /^cannot reach the API/.test(l.msg));
  assert.equal(warnings.length, 1, 'one line says it');
  assert.equal(warnings[0]?.host, host);
  assert.equal(warnings[0]?.url, url);
  const retries = daemon.logs().filter((l) => /failed.*retrying/.test(l.msg));
  assert.ok(retries.every((l) => l.api === host), 'each retry names the API host');
  const warnedRetries = retries.filter((l) => l.level >= 40);
  assert.ok(warnedRetries.length < retries.length, `${warnedRetries.length} of ${retries.length} retries at warn: a request warns once, not at each retry`);
  assert.equal(daemon.logs().filter((l) => l.msg === 'pass finished' || l.msg === 'pass failed').length, 0, 'the first pass is still retrying');

  daemon.child.kill('SIGTERM');
  assert.equal(await daemon.exited, 0);
  const stopped = daemon.logs().map((l) => l.msg);
  assert.ok(stopped.includes('daemon stopped'));
  assert.ok(!stopped.includes('shutdown: the pass in flight did not finish in time; aborting it'), 'the pass ended at the shutdown, not after its grace');
  assert.ok(!daemon.stderr().includes(TOKEN), 'the token is never logged');
});

test('a ready daemon whose API stops accepting connections is unready at the first refused request, not after the retry budget', async (t) => {
  const api = await TestEmulator.start();
  let closed = false;
  t.after(() => (closed ? undefined : api.close()));
  const dir = await tempTree(t, smallRepo());
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url, 'retry-budget': 3600 }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }] },
    { API_TOKEN: api.token },
  );
  await waitFor('the daemon to be ready', async () => ((await daemon.get('/readyz')).status === 200 ? true : undefined), 30_000);
  await api.close();
  closed = true;
  // A file change starts a pass, whose first request is refused; its retries would go on for an hour.
  await writeFile(path.join(dir, 'policies', 'after-close.native'), 'main = rule { true }\n');
  await waitFor('/readyz to say unready', async () => ((await daemon.get('/readyz')).status === 503 ? true : undefined), 30_000);
  const now = await status(daemon);
  assert.equal(now.apiReached, false);
  assert.match(now.error ?? '', /^cannot reach the API at .*connection refused/);
  assert.equal(daemon.logs().filter((l) => l.msg === 'pass failed').length, 0, 'said while the pass is still retrying');
});
