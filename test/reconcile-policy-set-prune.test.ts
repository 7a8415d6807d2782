/**
 * Prune of policy sets: a source with prune on reads the sets even when its repo declares none, and deletes a set it
 * owns and no longer declares (after the updates that take policies out of it); with prune off nothing is deleted.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const NATIVE = 'main = rule { true }\n';
const CONFIG = 'policy "one" {\n  source = "./one.sentinel"\n  enforcement_level = "advisory"\n}\n';

async function setNames(world: World): Promise<string[]> {
  const listed = (await world.call('GET', `/organizations/${ORG}/policy-sets`)).json as { data: Array<{ attributes: { name: string } }> };
  return listed.data.map((s) => s.attributes.name).sort();
}

describe('prune of policy sets', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('a repo that drops its last sets: kept without prune, deleted with prune after its policy leaves the set', async () => {
    const { world } = fixture;
    const declared = await fixture.repo({
      'policy-sets/baseline.yaml': 'description: The baseline\n',
      'libraries/lib/sentinel.hcl': CONFIG, 'libraries/lib/one.sentinel': NATIVE,
      'policies/tags.native': NATIVE, 'policies/tags.yaml': 'policy-sets: [baseline]\n',
      'policies/other.native': NATIVE,
    });
    const applied = await world.cli('--reconcile', declared, ['--source', 'team-a']);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.deepEqual(await setNames(world), ['baseline', 'lib']);

    // The sets and the policy's membership leave the repo; one other set is still declared, so the sets are read.
    const fewer = await fixture.repo({ 'policies/tags.native': NATIVE, 'policies/tags.yaml': 'policy-sets: []\n', 'policies/other.native': NATIVE, 'policy-sets/kept.yaml': '' });
    const kept = await world.cli('--reconcile', fewer, ['--source', 'team-a']);
    assert.equal(kept.code, 0, kept.stdout + kept.stderr);
    assert.match(kept.stdout, /not declared and kept because prune is off: policy-set "baseline", policy-set "lib"/);
    assert.deepEqual(await setNames(world), ['baseline', 'kept', 'lib']);

    // No set declared at all, prune off: the sets are not read, and nothing is deleted.
    const none = await fixture.repo({ 'policies/tags.native': NATIVE, 'policies/other.native': NATIVE });
    const quiet = await world.cli('--reconcile', none, ['--source', 'team-a']);
    assert.equal(quiet.code, 0, quiet.stdout + quiet.stderr);
    assert.deepEqual(await setNames(world), ['baseline', 'kept', 'lib']);

    // Prune on: the sets are read (the repo declares none) and the source's own sets are deleted.
    const planned = await world.cli('--dry-run', none, ['--source', 'team-a', '--prune']);
    assert.equal(planned.code, 0, planned.stdout + planned.stderr);
    for (const name of ['baseline', 'kept', 'lib']) assert.match(planned.stdout, new RegExp(`policy-set "${name}" will be destroyed \\(not declared, prune is on\\)`));
    assert.match(planned.stdout, /0 to create, 0 to update, 0 to replace, 3 to delete\./);
    const pruned = await world.cli('--reconcile', none, ['--source', 'team-a', '--prune']);
    assert.equal(pruned.code, 0, pruned.stdout + pruned.stderr);
    assert.deepEqual(await setNames(world), []);
    assert.deepEqual((await world.policies()).map((p) => p.name).sort(), ['other', 'tags']);
  });

});

describe('prune of a policy set its policy leaves', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('prune deletes a set after the update that takes its policy out of it, in one run', async () => {
    const { world } = fixture;
    const declared = await fixture.repo({ 'policy-sets/member.yaml': '', 'policies/joined.native': NATIVE, 'policies/joined.yaml': 'policy-sets: [member]\n' });
    assert.equal((await world.cli('--reconcile', declared, ['--source', 'team-b'])).code, 0);
    const without = await fixture.repo({ 'policies/joined.native': NATIVE, 'policies/joined.yaml': 'policy-sets: []\n' });
    await world.clearRequests();
    const run = await world.cli('--reconcile', without, ['--source', 'team-b', '--prune']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(await setNames(world), []);
    const writes = (await world.writes()).map((r) => `${r.method} ${r.path}`);
    const leave = writes.findIndex((w) => /relationships\/policies|PATCH \/policies\//.test(w));
    const remove = writes.findIndex((w) => /^DELETE \/policy-sets\/[^/]+$/.test(w));
    assert.ok(leave >= 0 && remove > leave, writes.join('\n'));
    assert.deepEqual((await world.policies()).find((p) => p.name === 'joined')?.['policy-set-ids'], []);
  });
});

describe('prune of a policy set a declared policy still lists', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('keeps the set, warning which policies list it, and the policy stays in it', async () => {
    const { world } = fixture;
    const declared = await fixture.repo({ 'policy-sets/listed.yaml': '', 'policies/member.native': NATIVE, 'policies/member.yaml': 'policy-sets: [listed]\n' });
    assert.equal((await world.cli('--reconcile', declared, ['--source', 'team-c'])).code, 0);
    // The set's file leaves the repo; the policy still names the set.
    const undeclared = await fixture.repo({ 'policies/member.native': NATIVE, 'policies/member.yaml': 'policy-sets: [listed]\n' });
    const planned = await world.cli('--dry-run', undeclared, ['--source', 'team-c', '--prune']);
    assert.equal(planned.code, 0, planned.stdout + planned.stderr);
    assert.doesNotMatch(planned.stdout, /policy-set "listed" will be destroyed/);
    assert.match(planned.stdout, /policy set "listed" is not declared, but 1 declared policy \("member"\) lists it in policy-sets: kept, not pruned/);
    await world.clearRequests();
    const applied = await world.cli('--reconcile', undeclared, ['--source', 'team-c', '--prune']);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.deepEqual(await world.writes(), []);
    assert.deepEqual(await setNames(world), ['listed']);
    const setId = ((await world.call('GET', `/organizations/${ORG}/policy-sets`)).json as { data: Array<{ id: string }> }).data[0]?.id;
    assert.deepEqual((await world.policies()).find((p) => p.name === 'member')?.['policy-set-ids'], [setId]);
  });
});
