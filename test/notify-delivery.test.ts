import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { createDeliveryQueue, type DeliveryResult, type Outgoing } from '../src/notify/delivery.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { captureLogs } from './helpers/logs.js';
import { startReceiver } from './helpers/receiver.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const FAST = { attempts: 3, timeoutMs: 300, backoffMs: 20 };

function message(url: string, event = 'applied'): Outgoing {
  return { event, url, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event }) };
}

function queueFor(limits: Partial<typeof FAST & { queueLength: number }> = FAST) {
  const results: [string, DeliveryResult][] = [];
  const logs = captureLogs();
  const queue = createDeliveryQueue({ receiver: 'r', logger: logs.logger, limits, onResult: (_, event, result) => results.push([event, result]) });
  return { queue, results, logs };
}

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('5xx answers and dropped connections are retried with back-off; a 4xx is not', async (t) => {
  const flaky = await startReceiver(t, [503, 'drop', 200]);
  const { queue, results } = queueFor();
  queue.push(message(flaky.url));
  await queue.drain(5_000);
  assert.equal(flaky.received.length, 3);
  assert.deepEqual(results, [['applied', 'sent']]);

  const refusing = await startReceiver(t, [400]);
  const second = queueFor();
  second.queue.push(message(refusing.url, 'failed'));
  await second.queue.drain(5_000);
  assert.equal(refusing.received.length, 1, 'a 4xx is not retried');
  assert.deepEqual(second.results, [['failed', 'failed']]);
});

test('a receiver that hangs times out each attempt; one that is down fails after its attempts; neither holds the next message', async (t) => {
  const hanging = await startReceiver(t, ['hang', 200]);
  const { queue, results } = queueFor();
  const started = Date.now();
  queue.push(message(hanging.url, 'applied'));
  queue.push(message(hanging.url, 'drift'));
  await queue.drain(5_000);
  assert.deepEqual(results, [['applied', 'sent'], ['drift', 'sent']]);
  assert.ok(Date.now() - started >= 300, 'the hung attempt waited for its timeout');

  const down = `http://127.0.0.1:${await closedPort()}/hook`;
  const failing = queueFor();
  failing.queue.push(message(down, 'failed'));
  await failing.queue.drain(5_000);
  assert.deepEqual(failing.results, [['failed', 'failed']]);
  assert.ok(!failing.logs.text().includes(down), 'the URL is never logged');
  assert.equal(failing.logs.messages().filter((m) => m === 'notification not delivered').length, 3);
});

test('past the queue length the oldest messages are dropped and counted', async (t) => {
  const slow = await startReceiver(t, ['hang']);
  const { queue, results } = queueFor({ ...FAST, attempts: 1, queueLength: 2 });
  for (const event of ['a', 'b', 'c', 'd']) queue.push(message(slow.url, event));
  // 'a' is in flight; of b, c, d the queue keeps the last two.
  assert.deepEqual(results, [['b', 'dropped']]);
  await queue.drain(5_000);
  assert.deepEqual(results.map(([e, r]) => `${e}:${r}`), ['b:dropped', 'a:failed', 'c:failed', 'd:failed']);
});

test('a receiver down for the whole run never delays or fails a pass', async (t) => {
  const down = `http://127.0.0.1:${await closedPort()}/hook`;
  const hanging = await startReceiver(t, ['hang']);
  const dir = await tempTree(t, {});
  // The start-up pass fails: an event for both receivers.
  const { calls, pass } = recordingPass((call) => call.trigger !== 'start-up');
  const { daemon, get } = await startTestDaemon(t, {
    sources: [testSource('main', { path: dir })],
    pass,
    env: { DOWN: down, HANGS: hanging.url },
    notifications: [
      { name: 'down', type: 'webhook', urlEnv: 'DOWN', urlFile: null, secretEnv: null, events: null, sources: null, statusUrl: null },
      { name: 'hangs', type: 'slack', urlEnv: 'HANGS', urlFile: null, secretEnv: null, events: null, sources: null, statusUrl: null },
    ],
    notificationLimits: { attempts: 50, timeoutMs: 60_000, backoffMs: 1_000 },
    // The stop at the end drops what both still hold at once, rather than after the usual 5 s.
    notificationCloseMs: 0,
  });
  await waitFor('the start-up pass', () => (calls.length === 1 ? true : undefined));
  // The receiver holds its delivery for the 60 s of the attempt's timeout: every pass below ends while it hangs.
  await waitFor('a delivery to the hanging receiver', () => (hanging.received.length > 0 ? true : undefined));
  for (let i = 0; i < 3; i += 1) {
    daemon.trigger('main', 'schedule');
    await daemon.whenIdle();
  }
  assert.deepEqual(hanging.accepted(), [], 'the delivery still hangs: no pass waited for it');
  const body = (await (await get('/status')).json()) as { sources: { result: string }[] };
  assert.equal(body.sources[0]?.result, 'success');
  assert.equal(calls.length, 4);
});
