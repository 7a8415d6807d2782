import assert from 'node:assert/strict';
import { test } from 'node:test';
import { firstSourceStatus as status, spawnDaemon } from './helpers/daemon-process.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { ORG, POLICY_SET, TestEmulator, WORKSPACES } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

test('a pool with workspaces attached and no idle or busy agent is flagged on /status, the page, the log and the metrics', async (t) => {
  // `build` is used by a workspace; `spare` only allows one, so its lack of agents stops no run.
  const [app] = WORKSPACES.map((w) => w.id);
  const api = await TestEmulator.start({
    organizations: [{
      name: ORG, maxAgentPools: 2, workspaces: WORKSPACES, policySets: [POLICY_SET],
      agentPools: [{ name: 'build', allowedWorkspaces: [app!], workspaces: [app!] }, { name: 'spare', allowedWorkspaces: [app!] }],
    }],
  });
  t.after(() => api.close());
  const dir = await tempTree(t, smallRepo());
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: '0 0 1 1 *' }] },
    { API_TOKEN: api.token, CONTROL_TOKEN: 'c-token-0123456789' },
  );
  await waitFor('the start-up pass', async () => ((await status(daemon)).pools !== undefined ? true : undefined));
  const pools = (await status(daemon)).pools ?? [];
  const build = pools.find((p) => p.name === 'build');
  assert.equal(build?.workspaces, 1);
  assert.match(build?.warning ?? '', /agent pool "build" has 1 workspace attached, and no idle or busy agent \(0 agents in all\)/);
  const spare = pools.find((p) => p.name === 'spare');
  assert.deepEqual([spare?.workspaces, spare?.warning], [0, null], 'allowed, not used: no warning');
  assert.ok(!daemon.logs().some((l) => l.pool === 'spare' && /no idle or busy agent/.test(l.msg)));
  assert.ok(daemon.logs().some((l) => l.pool === 'build' && /no idle or busy agent/.test(l.msg)));
  assert.match(await (await daemon.get('/status.html')).text(), /Agent pools<\/b><ul><li>agent pool &quot;build&quot; has 1 workspace/);

  const pool = (await api.organization())['agent-pools'].find((p) => p['name'] === 'build');
  const ping = new Date(Date.now() - 30_000).toISOString();
  const added = await api.control('POST', '/agents', { pool: pool?.['id'], agents: [{ name: 'a1', status: 'idle', 'last-ping-at': ping }, { name: 'a2', status: 'errored', 'last-ping-at': new Date(Date.now() - 7_200_000).toISOString() }] });
  assert.equal(added.status, 200);
  const sync = await fetch(`${daemon.origin}/sources/local/sync?wait=1`, { method: 'POST', headers: { authorization: 'Bearer c-token-0123456789' } });
  assert.equal(sync.status, 200);
  const healthy = (await status(daemon)).pools?.find((p) => p.name === 'build');
  assert.deepEqual(healthy?.agents, { idle: 1, busy: 0, exited: 0, errored: 1, unknown: 0 });
  assert.equal(healthy?.warning, null);
  assert.equal(healthy?.newestPingAt, ping);
  const metrics = parseExposition(await (await daemon.get('/metrics')).text());
  assert.equal(sampleValue(metrics, 'policy_pool_sync_pool_agents', { organization: 'example-org', pool: 'build', status: 'idle' }), 1);
  assert.equal(sampleValue(metrics, 'policy_pool_sync_pool_agents', { organization: 'example-org', pool: 'build', status: 'errored' }), 1);
  const age = sampleValue(metrics, 'policy_pool_sync_pool_newest_ping_age_seconds', { organization: 'example-org', pool: 'build' }) ?? 0;
  assert.ok(age >= 30 && age < 120, String(age));
  assert.doesNotMatch(await (await daemon.get('/status.html')).text(), /Agent pools<\/b>/);
});
