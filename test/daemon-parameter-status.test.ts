/**
 * /status names a sensitive parameter that cannot be read by its key, never by a path of the daemon's host: whoever
 * reads /status must not learn which paths exist there.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

test('/status names an unreadable parameter by its key, not by its host path', async (t) => {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const allowed = await tempTree(t, { 'present.key': 'a-Present-value-0042\n' });
  const dir = await tempTree(t, {
    'policy-sets/p.yaml': `parameters:\n  missing: { file: nonexistent/zz }\n  outside: { file: /nonexistent/zz }\n  fine: { file: ${path.join(allowed, 'present.key')} }\n`,
  });
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url }, parameters: { files: allowed }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }] },
    { API_TOKEN: api.token },
  );
  const failed = await waitFor('the failed start-up pass', async () => {
    const s = await status(daemon);
    return !s.running && s.lastPass?.trigger === 'start-up' && s.result === 'failure' ? s : undefined;
  }, 60_000);
  const shown = JSON.stringify(failed);
  assert.match(shown, /policy-sets\/p\.yaml:2: parameters\.missing: its file cannot be read: no such file in the folder the operator allows/);
  assert.match(shown, /policy-sets\/p\.yaml:3: parameters\.outside: its file is outside the folder the operator allows/);
  assert.doesNotMatch(shown, /parameters\.fine/);
  for (const hostPath of ['nonexistent', allowed]) assert.ok(!shown.includes(hostPath), `/status names ${hostPath}`);
});
