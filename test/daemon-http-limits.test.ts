import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { HTTP_LIMITS, type HttpLimits, type SourceStatus } from '../src/daemon/index.js';
import { silentLogger } from '../src/logger.js';
import { TestEmulator } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';

interface SlowClient {
  socket: Socket;
  openedAt: number;
  closedAt: number | null;
}

/**
 * A client that connects to `origin`, sends `prefix` at once, then trickles `trickle` one byte every `everyMs`
 * (and an `x` per tick after it), as a slow or malicious sender would.
 */
function slowClient(origin: string, prefix: string, trickle: string, everyMs: number): SlowClient {
  const { hostname, port } = new URL(origin);
  const socket = connect({ host: hostname, port: Number(port) });
  const client: SlowClient = { socket, openedAt: Date.now(), closedAt: null };
  let sent = 0;
  const timer = setInterval(() => {
    if (!socket.destroyed) socket.write(trickle[sent] ?? 'x');
    sent += 1;
  }, everyMs);
  socket.on('error', () => {});
  socket.on('data', () => {});
  socket.once('connect', () => socket.write(prefix));
  socket.once('close', () => {
    client.closedAt = Date.now();
    clearInterval(timer);
  });
  return client;
}

async function statusOf(get: (p: string) => Promise<Response>): Promise<SourceStatus | undefined> {
  return ((await (await get('/status')).json()) as { sources: SourceStatus[] }).sources[0];
}

/**
 * The daemon's limits scaled down for the test, so the deadlines pass in seconds; the cap on connections is the real
 * one. The headers deadline is what tells a connection refused at the cap (closed before it) from one cut off by a
 * deadline: long enough that a busy machine still closes the refused ones before it.
 */
const LIMITS: HttpLimits = { ...HTTP_LIMITS, headersTimeoutMs: 8_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 1_000, checkIntervalMs: 200 };

test('slow clients are cut off and capped: the daemon keeps serving, and its passes keep reading files', async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const dir = await tempTree(t, smallRepo());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger() });
  t.after(() => api.close());
  const clients: SlowClient[] = [];
  t.after(() => clients.forEach((c) => c.socket.destroy()));
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: dir })], api, httpLimits: LIMITS });
  await waitFor('the start-up pass', async () => ((await statusOf(get))?.result === 'success' ? true : undefined));

  const body = `POST /webhook HTTP/1.1\r\nHost: daemon\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n`;
  // Slow bodies (headers sent at once, then a byte every 250 ms), and slow headers.
  for (let i = 0; i < 200; i += 1) clients.push(slowClient(daemon.origin, body, '', 250));
  for (let i = 0; i < 100; i += 1) clients.push(slowClient(daemon.origin, '', 'GET /status HTTP/1.1\r\nHost: daemon\r\n', 250));

  // Connections beyond the cap are closed as they are accepted, before the first deadline (headers) could close any.
  const refusedAtOnce = () => clients.filter((c) => c.closedAt !== null && c.closedAt - c.openedAt < LIMITS.headersTimeoutMs).length;
  const early = await waitFor('connections over the cap to be refused', () => (refusedAtOnce() >= 300 - LIMITS.maxConnections ? refusedAtOnce() : undefined), LIMITS.headersTimeoutMs)
    .catch(() => refusedAtOnce());
  assert.ok(early >= 300 - LIMITS.maxConnections, `only ${early} of 300 slow connections were refused at once: no connection cap`);

  // While the slow clients hold their connections, a pass still reads the declared files and applies them.
  daemon.trigger('main', 'schedule');
  await daemon.whenIdle();

  // Every slow client is cut off by the request deadline and the checking interval; none is held open for ever.
  await waitFor('every slow client to be cut off', () => (clients.every((c) => c.closedAt !== null) ? true : undefined));
  const held = clients.filter((c) => (c.closedAt ?? Infinity) - c.openedAt >= LIMITS.headersTimeoutMs).length;
  assert.ok(held > 0, 'the connections under the cap were held until a deadline');

  assert.equal((await get('/healthz')).status, 200);
  const status = await statusOf(get);
  assert.equal(status?.lastTrigger, 'schedule');
  assert.equal(status?.result, 'success', `the pass during the attack failed: ${status?.error ?? ''}`);
});

test('a client that drops mid-body is logged at debug, not as an error with a stack', async (t) => {
  const { pass } = recordingPass();
  const sources = [testSource('main', { path: await tempTree(t) })];
  const { daemon, logs, get } = await startTestDaemon(t, { sources, pass, env: { TEST_WEBHOOK_SECRET: 'secret-1234-long-enough' } });
  await daemon.whenIdle();
  const { hostname, port } = new URL(daemon.origin);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  // The server answers 100 Continue once the request is handed to the daemon: from then on the body is being read.
  const handed = once(socket, 'data');
  socket.write('POST /webhook HTTP/1.1\r\nHost: daemon\r\ncontent-type: application/json\r\ncontent-length: 1000\r\nexpect: 100-continue\r\n\r\n');
  assert.match(String((await handed)[0]), /^HTTP\/1\.1 100 Continue/);
  socket.write('{"ref":');
  socket.destroy();
  await waitFor('the debug line', () => (logs.messages().includes('webhook client went away before sending the whole body') ? true : undefined));
  const lines = logs.text().trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string; err?: unknown; stack?: unknown });
  const errors = lines.filter((l) => l.level >= 50);
  assert.deepEqual(errors.map((l) => l.msg), [], 'no error-level line');
  assert.ok(lines.every((l) => l.err === undefined && l.stack === undefined), 'no stack in any line');
  assert.equal((await get('/healthz')).status, 200);
});

test('health probes are answered while 200 slow clients, reconnecting as they are cut off, trickle header lines', async (t) => {
  const { pass } = recordingPass();
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass, httpLimits: LIMITS });
  await daemon.whenIdle();
  let flooding = true;
  let connections = 0;
  const clients = new Set<Socket>();
  const flood = () => {
    if (!flooding) return;
    connections += 1;
    const client = slowClient(daemon.origin, '', 'GET /status HTTP/1.1\r\nHost: daemon\r\nX-Slow: 1\r\n', 200);
    clients.add(client.socket);
    client.socket.once('close', () => {
      clients.delete(client.socket);
      setTimeout(flood, 20);
    });
  };
  t.after(() => {
    flooding = false;
    for (const socket of clients) socket.destroy();
  });
  for (let i = 0; i < 200; i += 1) flood();
  await waitFor('the flood to hold more connections than the cap', () => (clients.size >= LIMITS.maxConnections ? true : undefined));
  // Twenty probes in a row, each one given the time a busy machine needs: a probe shut out by the slow clients is
  // refused or never answered, whatever its timeout.
  let answered = 0;
  let failed = 0;
  for (let i = 0; i < 20; i += 1) {
    const probe = await fetch(`${daemon.origin}/healthz`, { signal: AbortSignal.timeout(15_000) }).then((r) => r.status, () => 0);
    if (probe === 200) answered += 1;
    else failed += 1;
    // The next probe meets new slow clients: some were cut off and came back since this one.
    const mark = connections;
    await waitFor('the slow clients to reconnect', () => (connections > mark ? true : undefined));
  }
  flooding = false;
  assert.equal(failed, 0, `${failed} probes failed, ${answered} answered`);
});
