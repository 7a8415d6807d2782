import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { tempTree } from './helpers/temp-tree.js';

/** The image's HEALTHCHECK, `node bundle/healthcheck.mjs`, with `LISTEN_ADDRESS`; resolves with its exit code. */
function healthcheck(listen: string | undefined): Promise<number | null> {
  const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'] };
  if (listen !== undefined) env['LISTEN_ADDRESS'] = listen;
  return new Promise((resolve) => {
    spawn(process.execPath, [join(REPO_ROOT, 'bundle/healthcheck.mjs')], { env, stdio: 'ignore' }).on('close', (code) => resolve(code));
  });
}

test('the container health check asks /healthz on the port LISTEN_ADDRESS names, a wildcard host on loopback', async (t) => {
  const { daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass: recordingPass().pass });
  const port = new URL(daemon.origin).port;
  assert.equal(await healthcheck(`0.0.0.0:${port}`), 0);
  assert.equal(await healthcheck(`127.0.0.1:${port}`), 0);
  assert.equal(await healthcheck('0.0.0.0:1'), 1, 'nothing listens there');
});
