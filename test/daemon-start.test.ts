/** What the daemon says as it starts: which API and where that came from, each source, and no warning of Node's own. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnDaemon } from './helpers/daemon-process.js';
import { ORG, TestEmulator, TOKEN } from './helpers/emulator.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';
import { manyPolicies } from './helpers/repos.js';

test('the daemon names its API, where the URL came from, and each source, and its first pass prints no Node warning', async (t) => {
  // As `npm start`: the embedded emulator, whose answers come on the daemon's own event loop. 20 policies: more than
  // Node's default of 10 listeners per signal, created at once by the start-up pass.
  const config = { api: { url: 'embedded' }, sources: [{ name: 'many', organization: ORG, path: await tempTree(t, manyPolicies(20, 'start')), schedule: '0 0 1 1 *' }] };
  // A daemon in this process warns through this process (a child's warning is a line of its stderr, checked below).
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  t.after(() => process.off('warning', onWarning));
  const daemon = await spawnDaemon(t, config, { NODE_OPTIONS: '--trace-warnings' });
  await waitFor('the start-up pass', () => (daemon.logs().some((l) => l.msg === 'pass finished') ? true : undefined), 60_000);
  const api = daemon.logs().find((l) => l.msg === 'API: embedded');
  assert.equal(api?.from, 'api.url in the config file');
  assert.ok(daemon.logs().some((l) => l.msg === `source "many": organization ${ORG}` && typeof l.path === 'string'));
  assert.ok(!daemon.logs().some((l) => /API_BASE_URL is set/.test(l.msg)));
  const raw = daemon.stderr().split('\n').filter((line) => line !== '' && !line.startsWith('{'));
  assert.deepEqual([...raw, ...warnings], [], 'every line is a JSON record: no warning of Node');
});

test('an API_BASE_URL left in the environment is named as overriding the config file', async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const config = { api: { url: 'embedded' }, sources: [{ name: 'one', organization: ORG, path: await tempTree(t, manyPolicies(1, 'start')), schedule: '0 0 1 1 *' }] };
  const daemon = await spawnDaemon(t, config, { API_TOKEN: TOKEN, API_BASE_URL: emulator.url });
  const api = daemon.logs().find((l) => l.msg === `API: ${emulator.url}`);
  assert.equal(api?.from, 'API_BASE_URL');
  assert.ok(daemon.logs().some((l) => l.level === 40 && /^API_BASE_URL is set in the environment: it overrides api\.url of the config file/.test(l.msg)));
});
