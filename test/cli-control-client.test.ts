/**
 * The control commands (status, sync, suspend, resume) against servers that are not a well-behaved daemon: one that
 * never answers, one that answers without end, one that answers in another shape.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { spawnCli } from './helpers/cli.js';

const CONTROL = { CONTROL_TOKEN: 'control-token-Hq4yV7-abcdef' };

/** A server on a loopback port answering with `handler`; closed when the test ends. */
async function fakeDaemon(t: TestContext, handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (response: ServerResponse, body: unknown) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
};

test('a daemon that never answers: every command gives up after --timeout and says so', async (t) => {
  const requests: string[] = [];
  const silent = await fakeDaemon(t, (request) => void requests.push(`${request.method} ${request.url}`));
  // The three at once: each waits out its own timeout.
  await Promise.all([['status'], ['sync', '--source', 'main'], ['suspend', '--source', 'main']].map(async (args) => {
    // A safety kill far past the timeout: a hang shows as code null.
    const run = await spawnCli([...args, '--daemon', silent, '--timeout', '1'], { env: CONTROL, timeoutMs: 60_000 });
    assert.equal(run.code, 1, `${args[0]}: ${run.stderr}`);
    assert.match(run.stderr, new RegExp(`the daemon at ${silent} did not answer (GET|POST) /\\S+ within 1 s: check --daemon URL, or give it longer with --timeout SECONDS`));
  }));
  assert.deepEqual(requests.sort(), ['GET /status', 'POST /sources/main/suspend', 'POST /sources/main/sync?wait=1']);
  const bad = await spawnCli(['status', '--daemon', silent, '--timeout', 'soon']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--timeout must be a number of seconds above 0, not "soon"/);
});

test('an answer of 400 MB is refused after a few MiB, naming the URL', async (t) => {
  let sent = 0;
  const chunk = Buffer.alloc(1024 * 1024, 0x20);
  const flood = await fakeDaemon(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"sources":[');
    const more = () => {
      while (sent < 400 * chunk.length && !response.destroyed) {
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      response.end(']}');
    };
    response.on('close', () => response.destroy());
    more();
  });
  const run = await spawnCli(['status', '--daemon', flood], { env: CONTROL, timeoutMs: 120_000 });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stderr, new RegExp(`the answer of ${flood}/status is larger than 4 MiB: is --daemon URL a policy-pool-sync daemon\\?`));
  assert.ok(sent < 100 * chunk.length, `the server got to send ${sent / chunk.length} MiB`);
  // Declared up front: refused before a byte of the body is read.
  const declared = await fakeDaemon(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * 1024 * 1024) });
    response.write('{');
  });
  const early = await spawnCli(['status', '--daemon', declared], { env: CONTROL, timeoutMs: 60_000 });
  assert.equal(early.code, 1);
  assert.match(early.stderr, /larger than 4 MiB/);
});

test('an answer of the wrong shape is a message naming the field, not a crash', async (t) => {
  const row = { name: 'main', lastAttemptedRevision: null, lastAppliedRevision: null, result: 'success', driftCount: 0, nextRunAt: null, running: false };
  const shapes: Array<[unknown, RegExp]> = [
    [{ sources: [{ ...row, name: 5 }] }, /sources\[0\]\.name is not a string/],
    [{ sources: 'main' }, /sources is not a list/],
    [[1, 2], /sources is not a list/],
    [{ sources: [row, { ...row, running: 'no' }] }, /sources\[1\]\.running is not true or false/],
    [{ sources: [row], leadership: { identity: 'a', leading: 'yes', leader: null, storeReached: true } }, /leadership\.leading is not true or false/],
    [{ sources: [row], leadership: 'a' }, /leadership is not an object/],
  ];
  for (const [body, message] of shapes) {
    const origin = await fakeDaemon(t, (_request, response) => json(response, body));
    const run = await spawnCli(['status', '--daemon', origin], { env: CONTROL });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stderr, message);
    assert.match(run.stderr, /in a shape this client does not know .*is --daemon URL a policy-pool-sync daemon of this version\?/);
    assert.doesNotMatch(run.stderr, /TypeError|\n\s+at /, 'no stack trace');
  }
  const origin = await fakeDaemon(t, (request, response) => json(response, request.url === '/status' ? { sources: [row] } : { source: 'main', pass: { result: 7 } }));
  const sync = await spawnCli(['sync', '--daemon', origin], { env: CONTROL });
  assert.equal(sync.code, 1, sync.stderr);
  assert.match(sync.stderr, /answered POST \/sources\/main\/sync\?wait=1 in a shape this client does not know \(pass\.result is not a string\)/);
  assert.doesNotMatch(sync.stderr, /TypeError|\n\s+at /);
});

test('status names the leadership the daemon reports: a standby with no leader, its store failing, before the table', async (t) => {
  const row = { name: 'main', lastAttemptedRevision: null, lastAppliedRevision: null, result: null, driftCount: null, nextRunAt: null, running: false };
  const leadership = { identity: 'pod-b_7_0a1b2c3d', leading: false, leader: null, storeReached: false };
  const origin = await fakeDaemon(t, (_request, response) => json(response, { leadership, sources: [row] }));
  const run = await spawnCli(['status', '--daemon', origin]);
  assert.equal(run.code, 0, run.stderr);
  const [line, header] = run.stdout.split('\n');
  assert.equal(line, 'standby: this replica (pod-b_7_0a1b2c3d) does not sync; no replica holds the lease right now (its last exchange with the lease store failed)');
  assert.match(header ?? '', /^SOURCE\s+REVISION/);
  const asJson = await spawnCli(['status', '--daemon', origin, '--output', 'json', '--source', 'main']);
  assert.deepEqual(JSON.parse(asJson.stdout), { leadership, sources: [row] });
});
