/**
 * Policy sets declared in YAML (policy-sets/<name>.yaml): their members are the repo's policies that name them, by
 * name; the set exists before its policies join it; a name nothing has is an error naming the closest one; prune
 * deletes a source's own set, never another source's, and a set moved between sources is taken over only by adopt.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

interface SetDoc { id: string; attributes: { name: string; description: string | null } }

async function liveSets(world: World): Promise<SetDoc[]> {
  return ((await world.call('GET', `/organizations/${ORG}/policy-sets`)).json as { data: SetDoc[] }).data;
}

describe('policy sets declared in YAML, with members named by name', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('creates the set first, then the policies that name it join it; a second plan has no changes', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/baseline.yaml': 'description: The baseline\n',
      'policies/tags.native': 'main = rule { true }\n',
      'policies/tags.yaml': 'policy-sets: [baseline]\n',
      'policies/costs.native': 'main = rule { true }\n',
    });
    const run = await world.cli('--reconcile', dir, ['--source', 'team-a']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const set = (await liveSets(world)).find((s) => s.attributes.name === 'baseline');
    assert.ok(set);
    const tags = (await world.policies()).find((p) => p.name === 'tags');
    assert.deepEqual(tags?.['policy-set-ids'], [set.id]);
    const again = await world.cli('--dry-run', dir, ['--source', 'team-a']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /No changes\. The API matches the declared repo\./);
  });

  it('a name that nothing has is a plan error naming it and the closest set, before any write', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/baseline.yaml': '',
      'policies/typo.native': 'main = rule { true }\n',
      'policies/typo.yaml': 'policy-sets: [baselin]\n',
    });
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir, ['--source', 'team-a']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /policy "typo" names policy set "baselin", which neither the organization nor this repo has; did you mean "baseline"\?/);
    assert.deepEqual(await world.writes(), []);
  });

  it('a live set of the name backed by a VCS repository is a conflict: its policies are never added to it, nothing is written', async () => {
    const { world } = fixture;
    const made = await world.call('POST', `/organizations/${ORG}/policy-sets`, {
      body: { data: { type: 'policy-sets', attributes: { name: 'from-vcs', kind: 'native', 'vcs-repo': { identifier: 'org/policies', 'oauth-token-id': 'ot-1' } } } },
    });
    assert.equal(made.status, 201, made.text);
    const dir = await fixture.repo({
      'policy-sets/from-vcs.yaml': '',
      'policies/member.native': 'main = rule { true }\n',
      'policies/member.yaml': 'policy-sets: [from-vcs]\n',
    });
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir, ['--source', 'team-a']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /conflict: policy set "from-vcs" is backed by a VCS repository on the service; this source never uploads to it\. Rename one of them/);
    assert.deepEqual(await world.writes(), []);
  });

  it('under prune, a set moved to another source is a conflict there until adopted, and the old source does not delete it', async () => {
    const { world } = fixture;
    const moving = { 'policy-sets/moving.yaml': 'description: moves\n' };
    const a = await fixture.repo({ ...moving, 'policies/keep-a.native': 'main = rule { true }\n' });
    assert.equal((await world.cli('--reconcile', a, ['--source', 'team-a'])).code, 0);
    // team-b declares it now; team-a no longer does.
    const b = await fixture.repo({ ...moving, 'policies/keep-b.native': 'main = rule { true }\n' });
    const refused = await world.cli('--reconcile', b, ['--source', 'team-b', '--prune']);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stdout, /conflict: policy set "moving" carries the ownership marker of source "team-a"/);
    const adopted = await world.cli('--reconcile', b, ['--source', 'team-b', '--prune', '--adopt']);
    assert.equal(adopted.code, 0, adopted.stdout + adopted.stderr);
    assert.match((await liveSets(world)).find((s) => s.attributes.name === 'moving')?.attributes.description ?? '', /source=team-b/);
    // team-a, pruning without it, leaves team-b's set alone.
    const aWithout = await fixture.repo({ 'policies/keep-a.native': 'main = rule { true }\n', 'policy-sets/other.yaml': '' });
    const pruned = await world.cli('--reconcile', aWithout, ['--source', 'team-a', '--prune']);
    assert.equal(pruned.code, 0, pruned.stdout + pruned.stderr);
    assert.ok((await liveSets(world)).some((s) => s.attributes.name === 'moving'), 'team-b\'s set is not pruned by team-a');
    // team-b, pruning without it, deletes its own set.
    const bWithout = await fixture.repo({ 'policies/keep-b.native': 'main = rule { true }\n', 'policy-sets/b-other.yaml': '' });
    const own = await world.cli('--reconcile', bWithout, ['--source', 'team-b', '--prune']);
    assert.equal(own.code, 0, own.stdout + own.stderr);
    assert.ok(!(await liveSets(world)).some((s) => s.attributes.name === 'moving'), 'team-b prunes its own set');
  });
});
