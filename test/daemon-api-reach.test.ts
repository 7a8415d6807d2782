/** Whether a pass reached the API is learnt from its own requests, and /readyz says when it did not (the reason is on /status). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { SourceStatus } from '../src/daemon/index.js';
import { silentLogger } from '../src/logger.js';
import { TestEmulator } from './helpers/emulator.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';

async function firstStatus(get: (p: string) => Promise<Response>): Promise<SourceStatus | undefined> {
  return ((await (await get('/status')).json()) as { sources: SourceStatus[] }).sources[0];
}

test('a pass that cannot reach the API marks it unreached, and /readyz answers 503 unready (a status and a word); one that can marks it reached', { timeout: 30_000 }, async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  // The emulator's port, once it is closed: connections are refused.
  const closed = await TestEmulator.start();
  const refusedUrl = closed.url;
  await closed.close();
  for (const [url, reached] of [[refusedUrl, false], [emulator.url, true]] as const) {
    const api = new ApiClient({ baseUrl: url, token: emulator.token, logger: silentLogger(), maxRetries: 0 });
    t.after(() => api.close());
    const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t, smallRepo()) })], api });
    await daemon.whenIdle();
    const status = await firstStatus(get);
    assert.equal(status?.apiReached, reached, JSON.stringify(status));
    const ready = await get('/readyz');
    assert.equal(ready.status, reached ? 200 : 503);
    assert.equal(await ready.text(), reached ? 'ready\n' : 'unready\n');
  }
});
