import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { applyPlan } from '../src/apply/apply.js';
import { readDeclared } from '../src/declared/index.js';
import { readLive } from '../src/live/read-live.js';
import { silentLogger } from '../src/logger.js';
import { planChanges } from '../src/plan/plan.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

describe('a failed pool create stops the pool delete that depended on it', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES, agentPools: [{ name: 'old', agents: [] }] }] });

  it('with ownership organization and prune, the one-pool limit refuses the create and the old pool stays', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'agent-pools/new.yaml': 'organization-scoped: true\n' });
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    try {
      const declared = await readDeclared(dir);
      const live = await readLive({ api, organization: ORG, declared, logger: silentLogger() });
      const options = { source: 'default', ownership: 'organization' as const, prune: true, allowEmpty: false, maxDeletes: 10, force: false, now: Date.now() };
      const plan = planChanges(declared, live, options);
      assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.resource} ${c.name}`).sort(), ['create agent-pool new', 'delete agent-pool old']);
      const results = await applyPlan(plan, { api, organization: ORG, source: 'default', ownership: 'organization', logger: silentLogger() });
      const byName = new Map(results.map((r) => [r.change.name, r]));
      assert.equal(byName.get('new')?.outcome, 'failed');
      assert.equal(byName.get('old')?.outcome, 'skipped');
      assert.match(byName.get('old')?.message ?? '', /^not applied: the create of agent pool "new" did not succeed, and deleting "old" would leave the organization without the pool it replaces/);
    } finally {
      await api.close();
    }
    const pools = (await world.call('GET', `/organizations/${ORG}/agent-pools`)).json as { data: Array<{ attributes: { name: string } }> };
    assert.deepEqual(pools.data.map((p) => p.attributes.name), ['old']);
  });
});
