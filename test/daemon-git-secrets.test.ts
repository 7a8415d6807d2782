import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';

test('a git URL with a query-string token and a password holding @: no part of either on /status, the page, /readyz or the logs', async (t) => {
  const { pass } = recordingPass();
  const git = { url: 'https://deploy:pa@ss-w0rd@127.0.0.1:1/acme/policies.git?private_token=glpat-SeCrEt123', ref: 'main', path: '.' };
  const { get, daemon, logs } = await startTestDaemon(t, { sources: [testSource('remote', { git })], pass });
  await daemon.whenIdle();
  const texts = [
    await (await get('/status')).text(),
    await (await get('/status.html')).text(),
    await (await get('/readyz')).text(),
    logs.text(),
  ];
  for (const text of texts) {
    for (const secret of ['glpat-SeCrEt123', 'pa@ss', 'ss-w0rd', 'w0rd']) assert.ok(!text.includes(secret), `${secret} in ${text.slice(0, 400)}`);
  }
  assert.match(texts[0] ?? '', /git fetch of https:\/\/\*\*\*@127\.0\.0\.1:1\/acme\/policies\.git\?private_token=\*\*\*/);
  assert.equal(texts[2], 'unready\n');
});
