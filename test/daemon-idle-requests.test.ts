/** What a daemon's pass costs when nothing changed: each list read once, the pool list with what pool health needs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { SourceStatus } from '../src/daemon/index.js';
import { silentLogger } from '../src/logger.js';
import { ORG, TestEmulator, WORKSPACES } from './helpers/emulator.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { tempTree } from './helpers/temp-tree.js';

const [app] = WORKSPACES;

test('an idle pass of a source with a set and two pools reads each list once: at most 6 requests, pool health included', async (t) => {
  const emulator = await TestEmulator.start({ organizations: [{ name: ORG, maxAgentPools: 2, workspaces: WORKSPACES }] });
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger() });
  t.after(() => api.close());
  const dir = await tempTree(t, {
    'policies/a.native': 'main = rule { true }\n',
    'policies/a.yaml': 'policy-sets: [baseline]\n',
    'policies/b.native': 'main = rule { false }\n',
    'policies/b.yaml': 'policy-sets: [baseline]\n',
    'policy-sets/baseline.yaml': 'global: true\n',
    'agent-pools/build.yaml': 'organization-scoped: true\n',
    'agent-pools/deploy.yaml': `organization-scoped: false\nallowed-workspaces: [${app!.id}]\nagent-cleanup: { statuses: [exited], after: 1h }\n`,
  });
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: dir, maxAgentPools: 2 })], api });
  await daemon.whenIdle();
  const status = async () => ((await (await get('/status')).json()) as { sources: SourceStatus[] }).sources[0];
  // The start-up pass created both pools: their health is read after it, not taken from its read before the creates.
  assert.deepEqual((await status())?.pools?.map((p) => p.name).sort(), ['build', 'deploy']);

  const deploy = (await emulator.organization())['agent-pools'].find((p) => p['name'] === 'deploy');
  await emulator.addAgents(String(deploy?.['id']), [{ name: 'a1', status: 'idle', 'last-ping-at': new Date().toISOString() }]);
  await emulator.clearRequests();
  daemon.trigger('main', 'schedule');
  await daemon.whenIdle();
  const requests = (await emulator.requests()).map((r) => `${r.method} ${r.path.replace(/[?&]page%5B(size|number)%5D=\d+/g, '')}`);
  assert.ok(requests.every((r) => r.startsWith('GET ')), requests.join('\n'));
  assert.equal(requests.filter((r) => r.includes(`/organizations/${ORG}/agent-pools`)).length, 1, requests.join('\n'));
  assert.equal(requests.filter((r) => /\/agent-pools\/[^/]+\/agents/.test(r)).length, 2, 'each pool\'s agents once');
  assert.ok(requests.length <= 6, requests.join('\n'));
  // Pool health as that pass read it.
  const pools = (await status())?.pools ?? [];
  assert.deepEqual(pools.find((p) => p.name === 'deploy')?.agents, { idle: 1, busy: 0, exited: 0, errored: 0, unknown: 0 });
});
