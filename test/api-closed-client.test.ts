import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { NetworkError } from '../src/errors.js';
import { startApiFixture } from './helpers/api-fixture.js';
import { waitFor } from './helpers/wait.js';

test('a request waiting to retry when the tool closes its client fails at once, never retried on the closed client', async (t) => {
  const f = await startApiFixture();
  // The test closes the client itself; a second close would wait on the closed client.
  t.after(async () => {
    await f.emulator.close();
    await rm(f.tempDir, { recursive: true, force: true });
  });
  await f.emulator.addFaults({ kind: 'status', method: 'GET', path: '^/organizations/acme/policies$', status: 503, count: 1 });
  const listing = f.client.listPolicies('acme').then(() => null, (error: unknown) => error);
  // The 503 puts the request into its back-off, outside the queue: the close finds the queue idle.
  await waitFor('the first answer, a 503', async () => ((await f.emulator.requests()).length > 0 ? true : undefined), 60_000);
  await f.client.close();
  const error = await listing;
  assert.ok(error instanceof NetworkError, String(error));
  assert.match(error.message, /^GET \/organizations\/acme\/policies\?page\[number\]=1&page\[size\]=100 failed: UND_ERR_(CLOSED|DESTROYED): /);
  assert.doesNotMatch(error.message, /gave up after/);
  const retries = f.logLines.filter((line) => line.includes('UND_ERR_') && line.includes('retrying'));
  assert.equal(retries.length, 0, 'no retry of the closed client was logged');
});
