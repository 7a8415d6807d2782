import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { applyPlan } from '../src/apply/apply.js';
import { readDeclared } from '../src/declared/index.js';
import { silentLogger } from '../src/logger.js';
import { readLive } from '../src/live/read-live.js';
import { planChanges } from '../src/plan/plan.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

interface Resource {
  id: string;
  attributes: Record<string, unknown>;
}

const OLD = '2026-01-01T00:00:00.000Z';

describe('agent pools', () => {
  const fixture = useWorld({
    organizations: [{
      name: ORG,
      maxAgentPools: 1,
      workspaces: WORKSPACES,
      agentPools: [{
        name: 'build-old',
        agents: [
          { name: 'gone', status: 'exited', ipAddress: '10.0.0.5', lastPingAt: OLD },
          { name: 'broken', status: 'errored', ipAddress: '10.0.0.6', lastPingAt: OLD },
          { name: 'lost', status: 'unknown', ipAddress: '10.0.0.7', lastPingAt: OLD },
          { name: 'working', status: 'busy', ipAddress: '10.0.0.8', lastPingAt: OLD },
          { name: 'just-exited', status: 'exited', ipAddress: '10.0.0.9', lastPingAt: new Date().toISOString() },
        ],
      }],
    }],
  });

  async function pools(): Promise<Resource[]> {
    return ((await fixture.world.call('GET', `/organizations/${ORG}/agent-pools`)).json as { data: Resource[] }).data;
  }
  async function agentNames(poolId: string): Promise<string[]> {
    const list = (await fixture.world.call('GET', `/agent-pools/${poolId}/agents`)).json as { data: Resource[] };
    return list.data.map((a) => a.attributes['name'] as string).sort();
  }

  it('renames a pool through previous-names, keeping its id and agents, and cleans up only old agents in the listed statuses', async () => {
    const world = fixture.world;
    const [before] = await pools();
    assert.ok(before);
    const dir = await fixture.repo({
      'agent-pools/build.yaml': 'previous-names: [build-old]\nagent-cleanup: { statuses: [exited, errored], after: 1h }\n',
    });
    const run = await world.cli('--reconcile', dir);
    assert.equal(run.code, 0, run.stdout + run.stderr);

    const after = await pools();
    assert.equal(after.length, 1);
    assert.equal(after[0]!.id, before.id, 'renamed in place, not re-created');
    assert.equal(after[0]!.attributes['name'], 'build');
    assert.deepEqual(await agentNames(before.id), ['just-exited', 'lost', 'working']);

    const again = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout);
  });

  it('skips quietly an agent that came back between plan and apply (412)', async () => {
    const world = fixture.world;
    const [pool] = await pools();
    assert.ok(pool);
    const ids = await world.addAgents(pool.id, [{ name: 'flaky', status: 'unknown', 'ip-address': '10.0.0.10', 'last-ping-at': OLD }]);
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'agent-cleanup: { statuses: [unknown], after: 30m }\n' });
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    try {
      const declared = await readDeclared(dir);
      const live = await readLive({ api, organization: ORG, declared, logger: silentLogger() });
      const plan = planChanges(declared, live, { source: 'default', ownership: 'marker', prune: false, allowEmpty: false, maxDeletes: 10, force: false, now: Date.now() });
      assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.resource} ${c.name}`).sort(), ['delete agent flaky', 'delete agent lost']);
      assert.equal((await world.control('PATCH', `/agents/${ids[0]}`, { status: 'idle' })).status, 200);
      const results = await applyPlan(plan, { api, organization: ORG, source: 'default', ownership: 'marker', logger: silentLogger() });
      assert.equal(results.filter((r) => r.outcome === 'failed').length, 0);
      assert.deepEqual(results.map((r) => `${r.change.name} ${r.outcome}`).sort(), ['flaky skipped', 'lost applied']);
    } finally {
      await api.close();
    }
    assert.deepEqual(await agentNames(pool.id), ['flaky', 'just-exited', 'working']);
  });
});

describe('agent clean-up of agents that never pinged', () => {
  const now = Date.now();
  const registered2h = new Date(now - 2 * 3_600_000).toISOString();
  const registered10m = new Date(now - 10 * 60_000).toISOString();
  const fixture = useWorld({
    organizations: [{
      name: ORG,
      maxAgentPools: 1,
      workspaces: WORKSPACES,
      agentPools: [{
        name: 'build',
        agents: [
          { name: 'never-2h', status: 'exited', ipAddress: null, lastPingAt: null, createdAt: registered2h },
          { name: 'never-10m', status: 'exited', ipAddress: null, lastPingAt: null, createdAt: registered10m },
          { name: 'never-idle', status: 'idle', ipAddress: null, lastPingAt: null, createdAt: registered2h },
        ],
      }],
    }],
  });

  it('deletes one registered longer ago than after, keeps a recent one and an idle one, says why, and applies it from a saved plan', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'agent-cleanup: { statuses: [exited, errored, unknown], after: 1h }\n' });
    const plan = await world.cli('--dry-run', dir, ['--output', 'json']);
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    const changes = (JSON.parse(plan.stdout) as { sources: { changes: Record<string, unknown>[] }[] }).sources[0]?.changes ?? [];
    assert.deepEqual(changes.map(({ id: _id, ...change }) => change), [{
      resource: 'agent',
      name: 'never-2h',
      action: 'delete',
      reason: `agent clean-up in pool "build": exited, never pinged, registered ${registered2h}, older than 1h`,
      fields: { status: { before: 'exited', after: null }, 'last-ping-at': { before: null, after: null } },
    }]);

    // Saved, then applied as saved: the agent's fingerprint (a null last ping) is still the same.
    const saved = join(await fixture.repo({}), 'plan.json');
    assert.equal((await world.cli('--dry-run', dir, ['--out', saved])).code, 0);
    const run = await world.cli('--reconcile', dir, ['--plan', saved]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /- last-ping-at += null -> null/);
    const [pool] = ((await world.call('GET', `/organizations/${ORG}/agent-pools`)).json as { data: Resource[] }).data;
    assert.ok(pool);
    const list = (await world.call('GET', `/agent-pools/${pool.id}/agents`)).json as { data: Resource[] };
    assert.deepEqual(list.data.map((a) => a.attributes['name']).sort(), ['never-10m', 'never-idle']);

    const again = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout);
  });
});
