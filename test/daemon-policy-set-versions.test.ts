/** `/status` and the status page show each declared policy set's version, its state, and whether it is the one enforced. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SetVersionStatus } from '../src/operations/policy-set-versions.js';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { TestEmulator } from './helpers/emulator.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

test('/status: each set\'s version, ready or errored, enforced or not; a YAML set has none; the page shows the same', async (t) => {
  // The hosted dialect reads only sentinel.hcl: `neutral`'s native.hcl is accepted by the tool and errors there.
  const api = await TestEmulator.start({ nativeKind: 'sentinel' });
  t.after(() => api.close());
  const dir = await tempTree(t, {
    'policy-sets/baseline/sentinel.hcl': 'policy "one" {\n  source = "./one.sentinel"\n  enforcement_level = "advisory"\n}\n',
    'policy-sets/baseline/one.sentinel': 'main = rule { true }\n',
    'policy-sets/neutral/native.hcl': 'policy "two" {\n  source = "./two.sentinel"\n  enforcement_level = "advisory"\n}\n',
    'policy-sets/neutral/two.sentinel': 'main = rule { true }\n',
    'policy-sets/plain.yaml': 'description: members by name\n',
  });
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }] },
    { API_TOKEN: api.token },
  );
  const done = await waitFor('the start-up pass', async () => {
    const s = await status(daemon);
    return !s.running && s.lastPass?.trigger === 'start-up' ? s : undefined;
  }, 60_000);
  const sets = new Map((done.policySets ?? []).map((s: SetVersionStatus) => [s.name, s]));
  assert.deepEqual([...sets.keys()].sort(), ['baseline', 'neutral', 'plain'], JSON.stringify(done.policySets));

  const baseline = sets.get('baseline')!;
  assert.match(baseline.version ?? '', /^polsetver-/);
  assert.equal(baseline.state, 'ready');
  assert.equal(baseline.currentVersion, baseline.version);
  assert.equal(baseline.madeReady, baseline.version, 'the marker records the version this source made ready');
  assert.equal(baseline.enforced, true);

  const neutral = sets.get('neutral')!;
  assert.match(neutral.version ?? '', /^polsetver-/);
  assert.equal(neutral.state, 'errored');
  assert.match(neutral.error ?? '', /no sentinel\.hcl/);
  assert.equal(neutral.enforced, false);

  const plain = sets.get('plain')!;
  assert.match(plain.id ?? '', /^polset-/);
  assert.equal(plain.versioned, false);
  assert.equal(plain.enforced, null);

  const page = await (await daemon.get('/status.html')).text();
  assert.match(page, /<h3>Policy sets<\/h3>/);
  assert.match(page, new RegExp(`<td>baseline</td><td><code>${baseline.version}</code></td><td><span class="badge ok">ready</span></td><td><span class="badge ok">enforced</span></td>`));
  assert.match(page, /<td>neutral<\/td><td><code>polsetver-\S+<\/code><\/td><td><span class="badge bad">errored<\/span>.*not enforced/);
});
