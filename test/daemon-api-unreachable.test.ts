/** The daemon keeps retrying an API it cannot reach at all, and says so at warn level on each pass. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const TOKEN = 'unreachable-token-Secret42';

test('a daemon whose API refuses connections warns on each pass, naming the URL and what to check, and keeps retrying', async (t) => {
  // The emulator's port, once it is closed: connections are refused.
  const closed = await TestEmulator.start();
  const url = closed.url;
  await closed.close();
  const daemon = await spawnDaemon(
    t,
    { api: { url, 'retry-budget': 0.5 }, sources: [{ name: 'local', organization: 'example-org', path: await tempTree(t, smallRepo()), schedule: '0 0 1 1 *' }] },
    { API_TOKEN: TOKEN },
  );
  const warnings = () => daemon.logs().filter((l) => l.level === 40 && /^cannot reach the API/.test(l.msg));
  await waitFor('a warning on two passes', () => (warnings().length >= 2 ? true : undefined), 30_000);
  const passes = daemon.logs().filter((l) => l.msg === 'pass failed').length;
  assert.ok(passes >= 1 && warnings().length <= passes + 1, `one warning per pass: ${warnings().length} warnings, ${passes} failed passes`);
  const [first] = warnings();
  assert.equal(first?.url, url);
  assert.equal(first?.source, 'local');
  const port = new URL(url).port;
  assert.match(first?.msg ?? '', new RegExp(`^cannot reach the API at ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: nothing accepts connections on 127\\.0\\.0\\.1:${port} \\(connection refused\\): check the host and the port; check --api-url, API_BASE_URL or api\\.url; retrying on the next pass$`));
  assert.equal((await status(daemon)).apiReached, false);
  assert.equal(daemon.child.exitCode, null, 'the daemon keeps running');
  assert.ok(!daemon.stderr().includes(TOKEN), 'the token is never logged');
});
