import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { HTTP_LIMITS } from '../src/daemon/index.js';
import { spawnCli } from './helpers/cli.js';
import { newStateDir, recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { TestEmulator } from './helpers/emulator.js';
import { REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const NEVER = '0 0 1 1 *';
const CONTROL = 'control-Token-42';

/** A daemon process over a local folder, its start-up pass done; `stateDir` lets a second daemon share the first's state. */
async function controlDaemon(t: TestContext, options: { env?: NodeJS.ProcessEnv; stateDir?: string; api?: TestEmulator; dir?: string } = {}) {
  const api = options.api ?? (await TestEmulator.start());
  if (options.api === undefined) t.after(() => api.close());
  const dir = options.dir ?? (await tempTree(t, smallRepo()));
  const stateDir = options.stateDir ?? (await newStateDir(t));
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url }, 'state-dir': stateDir, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: NEVER }] },
    { API_TOKEN: api.token, ...options.env },
  );
  return { api, dir, stateDir, daemon };
}

const post = (origin: string, pathname: string, token?: string) =>
  fetch(`${origin}${pathname}`, { method: 'POST', headers: token === undefined ? {} : { authorization: `Bearer ${token}` } });

test('the control endpoints answer 403 without CONTROL_TOKEN, 401 without the token, 404 for an unknown source', async (t) => {
  const open = await controlDaemon(t);
  const refused = await post(open.daemon.origin, '/sources/local/sync', 'anything');
  assert.equal(refused.status, 403);
  assert.match(((await refused.json()) as { error: string }).error, /CONTROL_TOKEN/);
  assert.equal((await post(open.daemon.origin, '/sources/local/suspend')).status, 403);

  const guarded = await controlDaemon(t, { env: { CONTROL_TOKEN: CONTROL, STATUS_TOKEN: 'status-Token-1-long-enough' } });
  assert.equal((await post(guarded.daemon.origin, '/sources/local/sync')).status, 401);
  assert.equal((await post(guarded.daemon.origin, '/sources/local/suspend', 'wrong')).status, 401);
  assert.equal((await post(guarded.daemon.origin, '/sources/nope/sync', CONTROL)).status, 404);
  assert.equal((await fetch(`${guarded.daemon.origin}/sources/local/sync`)).status, 405);
  // With --source a command needs only CONTROL_TOKEN; status needs STATUS_TOKEN.
  const resumed = await spawnCli(['resume', '--daemon', guarded.daemon.origin, '--source', 'local'], { env: { CONTROL_TOKEN: CONTROL } });
  assert.equal(resumed.code, 0, resumed.stderr);
  const unknown = await spawnCli(['suspend', '--daemon', guarded.daemon.origin, '--source', 'nope'], { env: { CONTROL_TOKEN: CONTROL } });
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /404: no source named "nope"/);
  const status = await spawnCli(['status', '--daemon', guarded.daemon.origin], { env: { CONTROL_TOKEN: CONTROL } });
  assert.equal(status.code, 1);
  assert.match(status.stderr, /401.*\(set STATUS_TOKEN to the daemon's token\)/);
  assert.equal((await spawnCli(['status', '--daemon', guarded.daemon.origin], { env: { STATUS_TOKEN: 'status-Token-1-long-enough' } })).code, 0);
  assert.ok(!guarded.daemon.stderr().includes(CONTROL), 'the token is never logged');
});

test('sync waits for its pass and exits with its result; status prints a table and JSON', async (t) => {
  const { api, daemon } = await controlDaemon(t, { env: { CONTROL_TOKEN: CONTROL } });
  await waitFor('the start-up pass', async () => ((await status(daemon)).result === 'success' ? true : undefined));
  const env = { CONTROL_TOKEN: CONTROL };

  const policy = (await api.policies()).find((p) => p.name === 'require-tags');
  assert.ok(policy !== undefined);
  await api.call('PATCH', `/policies/${policy.id}`, { body: { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } } });
  const drifted = await spawnCli(['sync', '--daemon', daemon.origin, '--source', 'local', '--detailed-exitcode'], { env });
  assert.equal(drifted.code, 2, drifted.stderr);
  assert.match(drifted.stdout, /source "local": success, 1 change applied/);
  const again = await spawnCli(['sync', '--daemon', daemon.origin, '--detailed-exitcode'], { env });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /success, 0 changes applied/);
  assert.ok(daemon.logs().some((l) => l.msg === 'pass started' && l.trigger === 'sync'));

  const table = await spawnCli(['status', '--daemon', daemon.origin]);
  assert.equal(table.code, 0, table.stderr);
  const [header, row] = table.stdout.trim().split('\n');
  assert.match(header ?? '', /^SOURCE\s+REVISION\s+RESULT\s+DRIFT\s+NEXT RUN\s+SUSPENDED$/);
  assert.match(row ?? '', /^local\s+-\s+success\s+0\s+\S+\s+no$/);
  const json = await spawnCli(['status', '--daemon', daemon.origin, '--output', 'json']);
  const parsed = JSON.parse(json.stdout) as { sources: { name: string; suspended: boolean }[] };
  assert.deepEqual(parsed.sources.map((s) => [s.name, s.suspended]), [['local', false]]);

  const noToken = await spawnCli(['sync', '--daemon', daemon.origin]);
  assert.equal(noToken.code, 1);
  assert.match(noToken.stderr, /401.*set CONTROL_TOKEN/);
  const down = await spawnCli(['status', '--daemon', 'http://127.0.0.1:1']);
  assert.equal(down.code, 1);
  assert.match(down.stderr, /cannot reach the daemon at http:\/\/127\.0\.0\.1:1/);
});

test('a suspended source takes no trigger, stays suspended across a restart, and runs again once resumed', async (t) => {
  const first = await controlDaemon(t, { env: { CONTROL_TOKEN: CONTROL } });
  await waitFor('the start-up pass', async () => ((await status(first.daemon)).result === 'success' ? true : undefined));
  const env = { CONTROL_TOKEN: CONTROL };
  const suspended = await spawnCli(['suspend', '--daemon', first.daemon.origin, '--source', 'local'], { env });
  assert.equal(suspended.code, 0, suspended.stderr);
  assert.match(suspended.stdout, /source "local" suspended/);
  const after = await status(first.daemon);
  assert.equal(after.suspended, true);
  assert.ok(after.suspendedAt !== null);
  const metrics = parseExposition(await (await first.daemon.get('/metrics')).text());
  assert.equal(sampleValue(metrics, 'policy_pool_sync_suspended', { source: 'local' }), 1);

  // A file change starts no pass, and neither does sync.
  const passes = () => first.daemon.logs().filter((l) => l.msg === 'pass started').length;
  const before = passes();
  const ignored = (daemon: typeof first.daemon, trigger: string) => daemon.logs().filter((l) => l.msg.startsWith('trigger ignored') && l.trigger === trigger).length;
  await writeFile(path.join(first.dir, REQUIRE_TAGS_SETTINGS), 'description: Edited while suspended.\n');
  // The watcher saw the change and the source refused it: a pass it started would have come before this line.
  await waitFor('the file change to be refused', () => (ignored(first.daemon, 'file-change') > 0 ? true : undefined));
  assert.equal(passes(), before);
  const refused = await spawnCli(['sync', '--daemon', first.daemon.origin], { env });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /409: source "local" is suspended; resume it first/);
  const table = await spawnCli(['status', '--daemon', first.daemon.origin]);
  assert.match(table.stdout, /\byes$/m);

  first.daemon.child.kill('SIGTERM');
  assert.equal(await first.daemon.exited, 0);
  const second = await controlDaemon(t, { env: { CONTROL_TOKEN: CONTROL }, stateDir: first.stateDir, api: first.api, dir: first.dir });
  await waitFor('the start-up trigger to be refused', () => (ignored(second.daemon, 'start-up') > 0 ? true : undefined));
  const restarted = await status(second.daemon);
  assert.equal(restarted.suspended, true, 'the suspension is kept in the state dir');
  assert.equal(restarted.lastRunAt, null, 'no start-up pass for a suspended source');
  assert.equal(restarted.nextRunAt, null);

  const resumed = await spawnCli(['resume', '--daemon', second.daemon.origin], { env });
  assert.equal(resumed.code, 0, resumed.stderr);
  await waitFor('the pass after resume', async () => ((await status(second.daemon)).result === 'success' ? true : undefined));
  assert.equal((await status(second.daemon)).suspended, false);
  assert.equal(await first.api.description('require-tags'), 'Edited while suspended.');
});

/** Resolves once the daemon cuts off a client that never finishes its headers: its request deadline has passed. */
async function deadlineCut(origin: string): Promise<void> {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on('error', () => {});
  // Read what comes (its 408), so that the end of the connection is seen.
  socket.resume();
  socket.write('GET /healthz HTTP/1.1\r\nHost: daemon\r\n');
  await once(socket, 'close');
}

test('sync?wait=1 outlasts the request deadline: the answer comes when the pass ends', async (t) => {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const { calls, pass } = recordingPass(async (call) => {
    if (call.trigger === 'sync') await released;
    return true;
  });
  const { daemon } = await startTestDaemon(t, {
    sources: [testSource('main', { path: await tempTree(t, {}) })],
    pass,
    env: { CONTROL_TOKEN: CONTROL },
    httpLimits: { ...HTTP_LIMITS, requestTimeoutMs: 500, headersTimeoutMs: 500, checkIntervalMs: 100 },
  });
  await daemon.whenIdle();
  const answer = post(daemon.origin, '/sources/main/sync?wait=1', CONTROL);
  await waitFor('the sync pass to start', () => (calls.some((c) => c.trigger === 'sync') ? true : undefined));
  // A client that came after the sync request is cut off by the deadline: the sync request has outlived it too.
  await deadlineCut(daemon.origin);
  release();
  const response = await answer;
  assert.equal(response.status, 200);
  const body = (await response.json()) as { pass: { trigger: string; result: string } };
  assert.deepEqual([body.pass.trigger, body.pass.result], ['sync', 'success']);
  assert.deepEqual(calls.map((c) => c.trigger), ['start-up', 'sync']);
});

test('an unknown source answers 404 naming the sources there are, and the one most likely meant', async (t) => {
  const { pass } = recordingPass();
  const { daemon } = await startTestDaemon(t, {
    sources: [testSource('payments-prod', { path: await tempTree(t, {}) }), testSource('billing', { path: await tempTree(t, {}) })],
    pass,
    env: { CONTROL_TOKEN: CONTROL },
  });
  await daemon.whenIdle();
  const typo = await post(daemon.origin, '/sources/payments-prd/suspend', CONTROL);
  assert.equal(typo.status, 404);
  assert.deepEqual(await typo.json(), {
    error: 'no source named "payments-prd"; did you mean "payments-prod"? (the daemon\'s sources: "payments-prod", "billing")',
    sources: ['payments-prod', 'billing'],
  });
  const far = (await (await post(daemon.origin, '/sources/inventory/sync', CONTROL)).json()) as { error: string };
  assert.equal(far.error, 'no source named "inventory" (the daemon\'s sources: "payments-prod", "billing")');
  // A name that is not valid percent-encoding is a name like any other: 404, never an error of the daemon.
  const malformed = await post(daemon.origin, '/sources/billing%E0%A4%A/sync', CONTROL);
  assert.equal(malformed.status, 404);
  assert.equal(((await malformed.json()) as { error: string }).error, 'no source named "billing%E0%A4%A" (the daemon\'s sources: "payments-prod", "billing")');
  assert.deepEqual(daemon.statuses().map((s) => s.suspended), [false, false], 'nothing was suspended');
  // Only to a caller with the control token: without it the answer names nothing.
  const anonymous = await post(daemon.origin, '/sources/payments-prd/suspend', 'wrong-token-of-some-length');
  assert.equal(anonymous.status, 401);
  assert.doesNotMatch(await anonymous.text(), /payments-prod|billing/);
});
