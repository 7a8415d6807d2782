import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { silentLogger } from '../src/logger.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { ORG } from './helpers/emulator.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';
import { useWorld, type World } from './helpers/world.js';
import { manyPolicies } from './helpers/repos.js';


/** Every GET of the policy list takes `ms` longer, for as long as the test runs. */
function slowLists(world: World, ms: number): Promise<unknown> {
  return world.addFaults({ kind: 'latency', method: 'GET', path: '/policies$', 'latency-ms': ms, count: 0 });
}

describe('a pass that times out ends', () => {
  const fixture = useWorld();

  it('one-shot: --timeout ends a pass stuck on a slow answer, says so, and exits 1', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(manyPolicies(2, 'slow'));
    // Answered only after the test's own timeout: a run that ends at all ended because of --timeout.
    await slowLists(world, 600_000);
    try {
      const run = await world.cli('--reconcile', dir, ['--timeout', '0.3']);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout + run.stderr, /timed out after 0\.3 s \(--timeout\)/);
    } finally {
      await world.clearFaults();
    }
  });

  it('daemon: a timed-out pass stops, is reported, and the next pass runs', async (t: TestContext) => {
    const { world } = fixture;
    const dir = await tempTree(t, manyPolicies(2, 'daemon-slow'));
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    t.after(() => api.close());
    await slowLists(world, 600_000);
    const { daemon } = await startTestDaemon(t, { sources: [testSource('slow', { path: dir, organization: ORG, passTimeoutSeconds: 1 })], api });
    try {
      const failed = await waitFor('the timed-out pass', () => {
        const status = daemon.statuses()[0];
        return status?.result === 'timeout' || status?.result === 'failure' ? status : undefined;
      }, 60_000);
      assert.match(failed.error ?? '', /timed out after 1 s/);
    } finally {
      await world.clearFaults();
    }
    daemon.trigger('slow', 'webhook');
    await waitFor('the next pass', () => (daemon.statuses()[0]?.result === 'success' ? true : undefined), 60_000);
    const names = (await world.organization()).policies.map((p) => String(p['name']));
    assert.ok(names.includes('daemon-slow-0') && names.includes('daemon-slow-1'));
  });
});
