import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { readDeclared } from '../src/declared/index.js';
import { readLive } from '../src/live/read-live.js';
import { silentLogger } from '../src/logger.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const OLD = '2026-01-01T00:00:00.000Z';

// The live state is read against the pairing the planner makes (plan/pairs.ts): the agents of a pool are listed only
// when the pool pairs with a declaration that cleans up agents, and code only for the policy a declaration pairs with.
describe('reading the live state follows the pairing', () => {
  const fixture = useWorld({
    organizations: [{
      name: ORG,
      maxAgentPools: 3,
      agentPools: [
        { name: 'build', agents: [{ name: 'a', status: 'exited', ipAddress: '10.0.0.5', lastPingAt: OLD }] },
        { name: 'build-old', agents: [{ name: 'b', status: 'exited', ipAddress: '10.0.0.6', lastPingAt: OLD }] },
      ],
    }],
  });

  it('lists the agents of the pool of the declared name, not those of a previous name that pool did not take', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'agent-pools/build.yaml': 'previous-names: [build-old]\nagent-cleanup: { statuses: [exited], after: 30m }\n' });
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    try {
      await world.clearRequests();
      const live = await readLive({ api, organization: ORG, declared: await readDeclared(dir), logger: silentLogger() });
      const byName = new Map(live.pools.map((pool) => [pool.name, pool]));
      const listed = (await world.requests()).filter((r) => /\/agent-pools\/[^/]+\/agents/.test(r.path)).map((r) => r.path.split('/')[2]);
      assert.deepEqual(listed, [byName.get('build')!.id]);
      assert.deepEqual(byName.get('build')!.agents.map((a) => a.name), ['a']);
      assert.deepEqual(byName.get('build-old')!.agents, []);
    } finally {
      await api.close();
    }
  });
});
