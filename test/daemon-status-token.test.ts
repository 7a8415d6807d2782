import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempTree } from './helpers/temp-tree.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { AUTH_LIMITS } from '../src/daemon/index.js';

const TOKEN = 'status-token-Zq8xW2';

async function guardedDaemon(t: import('node:test').TestContext) {
  const { pass } = recordingPass();
  // Many wrong tokens from one address: a burst large enough that none is throttled (daemon-endpoint-guards.test.ts tests that).
  const authLimits = { ...AUTH_LIMITS, burst: 1_000 };
  const harness = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass, env: { STATUS_TOKEN: TOKEN }, authLimits });
  await harness.daemon.whenIdle();
  const fetchWith = (path: string, authorization?: string) =>
    fetch(`${harness.daemon.origin}${path}`, authorization === undefined ? {} : { headers: { authorization } });
  return { ...harness, fetchWith };
}

test('with STATUS_TOKEN, /status and /metrics need the token; /healthz, /readyz and the webhook stay open', async (t) => {
  const { fetchWith, logs, post } = await guardedDaemon(t);
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
  for (const path of ['/status', '/metrics', '/status?history=1']) {
    for (const authorization of [undefined, 'Bearer wrong', `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, TOKEN, `Token ${TOKEN}`, basic('admin', 'wrong'), basic(TOKEN, '')]) {
      const response = await fetchWith(path, authorization);
      assert.equal(response.status, 401, `${path} with ${authorization ?? 'no header'}`);
      assert.match(response.headers.get('www-authenticate') ?? '', /Basic realm=.*Bearer realm=/);
      assert.ok(!(await response.text()).includes(TOKEN));
    }
    assert.equal((await fetchWith(path, `Bearer ${TOKEN}`)).status, 200, `${path} with the bearer token`);
    assert.equal((await fetchWith(path, `bearer ${TOKEN}`)).status, 200, 'the scheme is case-insensitive');
    assert.equal((await fetchWith(path, basic('anyone', TOKEN))).status, 200, `${path} with the token as the Basic password`);
  }
  const status = (await (await fetchWith('/status', `Bearer ${TOKEN}`)).json()) as { sources: { name: string }[] };
  assert.equal(status.sources[0]?.name, 'main');
  assert.equal((await fetchWith('/healthz')).status, 200);
  assert.equal((await fetchWith('/readyz')).status, 200);
  assert.equal((await post('/webhook', '{}', {})).status, 503, 'the webhook answers by its own rules (no secret: 503), not 401');
  assert.ok(!logs.text().includes(TOKEN), 'the token is in no log line');
  assert.ok(logs.messages().some((m) => m.includes('require the token in STATUS_TOKEN')));
});

test('without STATUS_TOKEN the status routes are open, and a daemon listening beyond loopback says so', async (t) => {
  const { pass } = recordingPass();
  const { get, logs } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass });
  assert.equal((await get('/status')).status, 200);
  assert.equal((await get('/metrics')).status, 200);
  assert.ok(!logs.messages().some((m) => m.includes('open to anyone')), 'no warning on 127.0.0.1');
});

test('a STATUS_TOKEN with a line break, a space or a non-ASCII character is refused at start-up without printing it', async (t) => {
  const { pass } = recordingPass();
  for (const bad of ['abc\ndef-secret', 'abc def-secret', '\u201cdef-secret\u201d']) {
    await assert.rejects(
      startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass, env: { STATUS_TOKEN: bad } }),
      (error: Error) => {
        assert.match(error.message, /^STATUS_TOKEN: the status token contains a (line break|space|non-ASCII character) at character \d+ of \d+.*; it must be one line of at least 16 printable ASCII characters/);
        assert.ok(!error.message.includes('def-secret'));
        return true;
      },
    );
  }
});
