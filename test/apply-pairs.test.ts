import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';
import { manyPolicies } from './helpers/repos.js';

/** `count` native policies, each with its own code. */

describe('apply: a create and its upload as a pair', () => {
  const fixture = useWorld();

  it('uploads each created policy right after its create, so never more than `concurrency` are without code', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(manyPolicies(40, 'pair'));
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir);
    assert.equal(run.code, 0, run.stdout + run.stderr);

    // The request log is in the order answers went out: count the policies created but not yet uploaded at each point.
    let withoutCode = 0;
    let most = 0;
    for (const request of await world.requests()) {
      if (request.method === 'POST' && /\/policies$/.test(request.path) && request.status === 200) withoutCode += 1;
      if (request.method === 'PUT' && /\/upload$/.test(request.path) && request.status !== null && request.status < 300) withoutCode -= 1;
      most = Math.max(most, withoutCode);
    }
    assert.equal(withoutCode, 0);
    assert.ok(most <= 8, `${most} policies were without code at once; the concurrency is 8`);
  });

  it('two runs of the same repo at once both succeed, with no duplicate and every policy with its code', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(manyPolicies(30, 'race'));
    // Slow creates, so that both runs plan before either has created much.
    await world.addFaults({ kind: 'latency', method: 'POST', path: '/policies$', 'latency-ms': 20, count: 0 });
    try {
      const [first, second] = await Promise.all([world.cli('--reconcile', dir), world.cli('--reconcile', dir)]);
      assert.equal(first.code, 0, first.stdout + first.stderr);
      assert.equal(second.code, 0, second.stdout + second.stderr);
    } finally {
      await world.clearFaults();
    }
    const policies = (await world.organization()).policies.filter((p) => String(p['name']).startsWith('race-'));
    assert.equal(policies.length, 30);
    assert.equal(new Set(policies.map((p) => p['name'])).size, 30, 'no duplicates');
    assert.deepEqual(policies.filter((p) => p['code'] === null).map((p) => p['name']), [], 'every policy has its code');
    assert.equal((await world.cli('--dry-run', dir, ['--detailed-exitcode'])).code, 0, 'nothing left to do');
  });
  it('a next run uploads the code of policies an interrupted run left without it before anything else', async () => {
    const world = fixture.world;
    const half = manyPolicies(5, 'half');
    const dir = await fixture.repo({ ...half, ...manyPolicies(20, 'later') });
    // What a run killed between creates and uploads leaves: policies carrying this source's marker, without code.
    for (const file of Object.keys(half)) {
      const name = file.replace(/^policies\/|\.native$/g, '');
      const made = await world.call('POST', `/organizations/${ORG}/policies`, {
        body: { data: { type: 'policies', attributes: { name, kind: 'native', description: '<!-- managed-by: policy-pool-sync source=default -->', 'enforcement-level': 'advisory' } } },
      });
      assert.equal(made.status, 200, made.text);
    }
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const writes = (await world.writes()).map((r) => r.method);
    assert.deepEqual(writes.slice(0, 5), ['PUT', 'PUT', 'PUT', 'PUT', 'PUT'], `first writes: ${writes.slice(0, 8).join(' ')}`);
    assert.deepEqual((await world.policies()).filter((p) => p.code === null).map((p) => p.name), []);
  });
});
