/**
 * A policy set version the service marks errored: the daemon's /status and a webhook notification carry the service's
 * error-message, not only that the pass failed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { startReceiver } from './helpers/receiver.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

test('an errored set version: /status and the failed event name the set and carry the service\'s error-message', async (t) => {
  // The hosted dialect reads only sentinel.hcl: the document's native.hcl passes every check of the tool and errors there.
  const api = await TestEmulator.start({ nativeKind: 'sentinel' });
  t.after(() => api.close());
  const hook = await startReceiver(t);
  const dir = await tempTree(t, {
    'policy-sets/neutral/native.hcl': 'policy "one" {\n  source = "./one.sentinel"\n  enforcement_level = "advisory"\n}\n',
    'policy-sets/neutral/one.sentinel': 'main = rule { true }\n',
  });
  const daemon = await spawnDaemon(
    t,
    {
      api: { url: api.url },
      sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }],
      notifications: [{ name: 'ops', type: 'webhook', 'url-env': 'HOOK' }],
    },
    { API_TOKEN: api.token, CONTROL_TOKEN: 'c-token-0123456789', HOOK: hook.url },
  );
  const message = /version polsetver-\S+ of policy set "neutral" errored: no sentinel\.hcl at the root of the policy set version's archive/;
  const failed = await waitFor('the failed start-up pass', async () => {
    const s = await status(daemon);
    return !s.running && s.lastPass?.trigger === 'start-up' && s.result === 'failure' ? s : undefined;
  }, 60_000);
  const change = failed.lastPass?.changes.find((c) => c.resource === 'policy-set' && c.name === 'neutral');
  assert.equal(change?.outcome, 'failed', JSON.stringify(failed.lastPass));
  assert.match(change.message ?? '', message);
  assert.match(failed.lastPass?.error ?? '', /create policy-set "neutral" failed: version polsetver-\S+ of policy set "neutral" errored: no sentinel\.hcl/);

  const event = await waitFor('the failed event', () => hook.received.find((r) => r.json?.event === 'failed'));
  assert.match(String(event.json.summary), /failed: create policy-set "neutral" failed: version polsetver-\S+ of policy set "neutral" errored: no sentinel\.hcl/);
  const hooked = (event.json.changes as Array<{ resource: string; name: string; outcome: string; message: string | null }>).find((c) => c.name === 'neutral');
  assert.equal(hooked?.resource, 'policy-set');
  assert.equal(hooked.outcome, 'failed');
  assert.match(hooked.message ?? '', message);
});
