/**
 * The operator's endpoints against hostile clients: a web page in the operator's browser (ambient Basic credentials,
 * another site's Origin, a rebound DNS name), a guesser of tokens, and a replayer of webhook deliveries.
 */
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { test, type TestContext } from 'node:test';
import { createAuthGate, type AuthLimits } from '../src/server/auth-gate.js';
import { createDeliveryLog } from '../src/server/webhook-deliveries.js';
import { captureLogs } from './helpers/logs.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { rawRequest } from './helpers/raw-http.js';
import { tempTree } from './helpers/temp-tree.js';
import { githubSignature } from './helpers/webhook-signature.js';
import { waitFor } from './helpers/wait.js';
import { Registry } from 'prom-client';

const STATUS = 'status-token-Zq8xW2-abcdef';
const CONTROL = 'control-token-Hq4yV7-abcdef';
const SECRET = 'webhook-secret-Pw3u-abcdef';

async function guardedDaemon(t: TestContext, options: { env?: NodeJS.ProcessEnv; allowedHosts?: string[]; authLimits?: AuthLimits } = {}) {
  const recorded = recordingPass();
  const harness = await startTestDaemon(t, {
    sources: [testSource('main', { path: await tempTree(t) })],
    pass: recorded.pass,
    env: options.env ?? { STATUS_TOKEN: STATUS, CONTROL_TOKEN: CONTROL, TEST_WEBHOOK_SECRET: SECRET },
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    ...(options.authLimits === undefined ? {} : { authLimits: options.authLimits }),
  });
  await harness.daemon.whenIdle();
  const suspended = async () => {
    const body = (await (await fetch(`${harness.daemon.origin}/status`, { headers: { authorization: `Bearer ${STATUS}` } })).json()) as { sources: { suspended: boolean }[] };
    return body.sources[0]?.suspended;
  };
  return { ...harness, calls: recorded.calls, suspended };
}

const basic = (password: string) => `Basic ${Buffer.from(`operator:${password}`).toString('base64')}`;

test('control takes only Authorization: Bearer: Basic credentials, which a browser re-sends on its own, are refused', async (t) => {
  const { daemon, suspended } = await guardedDaemon(t);
  for (const authorization of [basic(CONTROL), basic(STATUS), `Bearer ${STATUS}`]) {
    const answer = await rawRequest(daemon.origin, '/sources/main/suspend', { method: 'POST', headers: { authorization } });
    assert.equal(answer.status, 401, authorization.slice(0, 6));
  }
  assert.equal(await suspended(), false);
  const bearer = await rawRequest(daemon.origin, '/sources/main/suspend', { method: 'POST', headers: { authorization: `Bearer ${CONTROL}` } });
  assert.equal(bearer.status, 200);
  assert.equal(await suspended(), true);
  // The status routes still take the token as a Basic password: the browser's log-in prompt.
  assert.equal((await rawRequest(daemon.origin, '/status', { headers: { authorization: basic(STATUS) } })).status, 200);
});

test('a request a browser marks as from another site is refused (403) by the control endpoints, even with the right token', async (t) => {
  const { daemon, suspended } = await guardedDaemon(t);
  const host = new URL(daemon.origin).host;
  const bearer = { authorization: `Bearer ${CONTROL}` };
  const hostile: Record<string, string>[] = [
    { origin: 'https://evil.example' },
    { origin: 'null' },
    { origin: `http://localhost:${Number(new URL(daemon.origin).port) + 1}` },
    // The same host name on another port is another origin: another program on this machine.
    { origin: `http://${new URL(daemon.origin).hostname}:${Number(new URL(daemon.origin).port) + 1}` },
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
    { 'sec-fetch-site': 'cross-site', origin: daemon.origin },
  ];
  for (const headers of hostile) {
    const answer = await rawRequest(daemon.origin, '/sources/main/suspend', { method: 'POST', headers: { ...bearer, ...headers } });
    assert.equal(answer.status, 403, JSON.stringify(headers));
    assert.match(answer.body, /refused a request from another site/);
  }
  assert.equal(await suspended(), false, 'no hostile request suspended the source');
  const own = await rawRequest(daemon.origin, '/sources/main/suspend', { method: 'POST', headers: { ...bearer, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' } });
  assert.equal(own.status, 200, 'a request from the daemon\'s own origin');
  assert.equal(await suspended(), true);
});

test('a Host that is not a name of the daemon (DNS rebinding) gets 403 on status, page, metrics and control; probes and the webhook answer any Host', async (t) => {
  const { daemon } = await guardedDaemon(t, { env: { CONTROL_TOKEN: CONTROL, TEST_WEBHOOK_SECRET: SECRET }, allowedHosts: ['sync.internal.example', '*.svc.cluster.local'] });
  const port = new URL(daemon.origin).port;
  for (const path of ['/status', '/status.html', '/metrics', '/']) {
    const answer = await rawRequest(daemon.origin, path, { headers: { host: `rebound.evil.example:${port}` } });
    assert.equal(answer.status, 403, path);
    assert.match(answer.body, /not a name of this daemon.*allowed-hosts/);
  }
  const control = await rawRequest(daemon.origin, '/sources/main/sync', { method: 'POST', headers: { host: `rebound.evil.example:${port}`, authorization: `Bearer ${CONTROL}` } });
  assert.equal(control.status, 403);
  for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `10.1.2.3:${port}`, `[::1]:${port}`, `sync.internal.example:${port}`, 'SYNC.internal.example', `policy-pool-sync.ops.svc.cluster.local:${port}`]) {
    assert.equal((await rawRequest(daemon.origin, '/status', { headers: { host } })).status, 200, host);
  }
  // kubelet probes by the pod IP, GitHub through an ingress's name: both answer whatever the Host.
  for (const path of ['/healthz', '/readyz']) assert.equal((await rawRequest(daemon.origin, path, { headers: { host: 'rebound.evil.example' } })).status, 200, path);
  const body = JSON.stringify({ after: 'abc' });
  const webhook = await rawRequest(daemon.origin, '/webhook', { method: 'POST', body, headers: { host: 'hooks.public.example', 'content-type': 'application/json', 'x-hub-signature-256': githubSignature(SECRET, body) } });
  assert.equal(webhook.status, 202);
});

test('failed authentications are counted, logged once a minute, and throttled per client without delaying probes', async (t) => {
  const { daemon, logs, get } = await guardedDaemon(t);
  for (let i = 0; i < 10; i += 1) {
    const wrong = await rawRequest(daemon.origin, '/sources/main/suspend', { method: 'POST', headers: { authorization: `Bearer wrong-${i}` } });
    assert.equal(wrong.status, 401);
  }
  // The eleventh attempt is not even checked: the right token gets 429 too, so guessing goes 10 a minute at most.
  const throttled = await rawRequest(daemon.origin, '/sources/main/suspend', { method: 'POST', headers: { authorization: `Bearer ${CONTROL}` } });
  assert.equal(throttled.status, 429);
  assert.ok(Number(throttled.headers['retry-after']) >= 1, `Retry-After: ${String(throttled.headers['retry-after'])}`);
  assert.equal((await get('/healthz')).status, 200, 'probes are not throttled');
  assert.equal((await get('/readyz')).status, 200);
  // Each route checks its own token, but a client's failures are counted together.
  assert.equal((await rawRequest(daemon.origin, '/status', { headers: { authorization: `Bearer ${STATUS}` } })).status, 429);

  const lines = logs.lines.map((l) => JSON.parse(l) as { msg: string; endpoint?: string; failures?: number });
  const failed = lines.filter((l) => l.msg === 'authentication failed');
  assert.deepEqual(failed.map((l) => l.endpoint), ['control', 'status'], 'one line per endpoint for the burst, not one per attempt');
  assert.ok(!logs.text().includes(CONTROL) && !logs.text().includes('wrong-3'), 'no token, right or wrong, is logged');
});

test('the failure metric counts every refused attempt by endpoint', async (t) => {
  const { daemon, post } = await guardedDaemon(t, { authLimits: { burst: 100, refillMs: 60_000, maxClients: 10, logEveryMs: 60_000 } });
  for (let i = 0; i < 3; i += 1) await rawRequest(daemon.origin, '/sources/main/sync', { method: 'POST', headers: { authorization: 'Bearer wrong' } });
  await rawRequest(daemon.origin, '/status');
  await post('/webhook', '{}', { 'x-hub-signature-256': githubSignature('not-the-secret', '{}') });
  const text = await (await fetch(`${daemon.origin}/metrics`, { headers: { authorization: `Bearer ${STATUS}` } })).text();
  const metrics = parseExposition(text);
  assert.equal(sampleValue(metrics, 'policy_pool_sync_auth_failures_total', { endpoint: 'control' }), 3);
  assert.equal(sampleValue(metrics, 'policy_pool_sync_auth_failures_total', { endpoint: 'status' }), 1);
  assert.equal(sampleValue(metrics, 'policy_pool_sync_auth_failures_total', { endpoint: 'webhook' }), 1);
  assert.equal(sampleValue(metrics, 'policy_pool_sync_auth_throttled_total', { endpoint: 'control' }), 0);
  assert.ok(!text.includes(SECRET) && !text.includes(CONTROL));
});

test('the gate gives a client its attempts back over time, and forgets the clients seen longest ago', () => {
  let now = 0;
  const logs = captureLogs();
  const gate = createAuthGate({ registry: new Registry(), logger: logs.logger, now: () => now, limits: { burst: 2, refillMs: 1_000, maxClients: 2, logEveryMs: 10_000 } });
  const from = (address: string) => ({ socket: { remoteAddress: address }, headers: {} }) as unknown as IncomingMessage;
  const wrong = () => false;
  assert.equal(gate.check('control', from('10.0.0.1'), wrong), 'refused');
  assert.equal(gate.check('control', from('10.0.0.1'), wrong), 'refused');
  assert.equal(gate.check('control', from('10.0.0.1'), () => true), 'throttled');
  assert.equal(gate.retryAfterSeconds(from('10.0.0.1')), 1);
  now = 1_000;
  assert.equal(gate.check('control', from('10.0.0.1'), () => true), 'ok', 'one attempt back after refillMs');
  // An IPv6 host holds a /64: its addresses share one budget.
  assert.equal(gate.check('control', from('2001:db8::1'), wrong), 'refused');
  assert.equal(gate.check('control', from('2001:db8::2'), wrong), 'refused');
  assert.equal(gate.check('control', from('2001:db8::3'), () => true), 'throttled');
  // A third client: the one seen longest ago (10.0.0.1) is forgotten, so memory holds two at most.
  assert.equal(gate.check('control', from('10.0.0.3'), wrong), 'refused');
  assert.equal(gate.check('control', from('::ffff:10.0.0.1'), wrong), 'refused', 'the mapped IPv4 address is the same client, forgotten');
  assert.equal(logs.messages().filter((m) => m === 'authentication failed').length, 1);
  now = 20_000;
  gate.failed('webhook', from('10.0.0.9'), 'signature does not match');
  const last = JSON.parse(logs.lines.at(-1) ?? '{}') as { failures: number; endpoint: string };
  assert.deepEqual([last.endpoint, last.failures], ['webhook', 1]);
});

test('a webhook delivery sent again triggers no pass: by its delivery id, or by its body under a new id', async (t) => {
  const { post, calls, daemon } = await guardedDaemon(t);
  const push = JSON.stringify({ ref: 'refs/heads/main', after: 'a1b2c3' });
  const signed = (body: string, id: string) => ({ 'x-hub-signature-256': githubSignature(SECRET, body), 'x-github-event': 'push', 'x-github-delivery': id });
  const first = await post('/webhook', push, signed(push, 'delivery-1'));
  assert.equal(first.status, 202);
  await waitFor('the webhook pass', () => (calls.length === 2 ? true : undefined));
  await daemon.whenIdle();
  for (const id of ['delivery-1', 'delivery-forged-2']) {
    const again = await post('/webhook', push, signed(push, id));
    assert.equal(again.status, 200, id);
    assert.equal(((await again.json()) as { duplicate: boolean }).duplicate, true);
  }
  const gitlab = JSON.stringify({ object_kind: 'push', after: 'd4e5f6' });
  const gitlabHeaders = { 'x-gitlab-token': SECRET, 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'uuid-7' };
  assert.equal((await post('/webhook', gitlab, gitlabHeaders)).status, 202);
  await waitFor('the GitLab pass', () => (calls.length === 3 ? true : undefined));
  await daemon.whenIdle();
  assert.equal((await post('/webhook', gitlab, gitlabHeaders)).status, 200);
  assert.equal((await post('/webhook', `${gitlab} `, gitlabHeaders)).status, 200, 'the same delivery id with another body');
  await daemon.whenIdle();
  assert.equal(calls.length, 3, 'no pass for a replay');
});

test('the delivery log forgets after its window and holds a bounded number of deliveries', () => {
  let now = 0;
  const log = createDeliveryLog({ windowMs: 1_000, max: 2 }, () => now);
  assert.equal(log.seen('a', Buffer.from('1')), false);
  assert.equal(log.seen('a', Buffer.from('1')), true);
  now = 1_000;
  assert.equal(log.seen('a', Buffer.from('1')), false, 'forgotten after the window');
  assert.equal(log.seen('b', Buffer.from('2')), false);
  assert.equal(log.seen('c', Buffer.from('3')), false);
  assert.equal(log.seen(undefined, Buffer.from('4')), false);
  assert.equal(log.seen('a', Buffer.from('1')), false, 'the oldest is forgotten past the cap');
});

test('secrets under 16 characters, or two of them equal, are refused at start-up, naming the variables and not the values', async (t) => {
  const refused = async (env: NodeJS.ProcessEnv, pattern: RegExp, hidden: string) =>
    assert.rejects(startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass: recordingPass().pass, env }), (error: Error) => {
      assert.match(error.message, pattern);
      assert.ok(!error.message.includes(hidden), error.message);
      return true;
    });
  await refused({ CONTROL_TOKEN: 'short-ctl' }, /^CONTROL_TOKEN: the control token has 9 characters, fewer than 16/, 'short-ctl');
  await refused({ STATUS_TOKEN: 'short-status' }, /^STATUS_TOKEN: the status token has 12 characters, fewer than 16/, 'short-status');
  await refused({ TEST_WEBHOOK_SECRET: 'short-hook' }, /^TEST_WEBHOOK_SECRET: the webhook secret has 10 characters, fewer than 16/, 'short-hook');
  await refused({ STATUS_TOKEN: CONTROL, CONTROL_TOKEN: CONTROL }, /^STATUS_TOKEN and CONTROL_TOKEN hold the same value: give each its own/, CONTROL);
  await refused({ CONTROL_TOKEN: SECRET, TEST_WEBHOOK_SECRET: SECRET }, /^CONTROL_TOKEN and TEST_WEBHOOK_SECRET hold the same value/, SECRET);
  await refused({ STATUS_TOKEN: SECRET, TEST_WEBHOOK_SECRET: SECRET }, /^STATUS_TOKEN and TEST_WEBHOOK_SECRET hold the same value/, SECRET);
});
