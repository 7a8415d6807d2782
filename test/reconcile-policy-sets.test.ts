import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const SET_A = 'polset-SetAAAAAAAAAA01';
const SET_B = 'polset-SetBBBBBBBBBB02';
const CODE = 'main = rule { true }\n';

async function setsOf(world: World, name: string): Promise<string[] | undefined> {
  const policy = (await world.policies()).find((p) => p.name === name);
  return (policy?.['policy-set-ids'] as string[] | undefined)?.slice().sort();
}

describe('policy sets kept in step', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES, policySets: [SET_A, SET_B] }] });

  it('a changed policy-sets list is an update in every format, applied by adding and removing, from a saved plan too; a second plan is empty', async () => {
    const { world } = fixture;
    const first = await fixture.repo({ 'policies/moving.native': CODE, 'policies/moving.yaml': `policy-sets: [${SET_A}]\n` });
    const created = await world.cli('--reconcile', first);
    assert.equal(created.code, 0, created.stderr + created.stdout);
    assert.deepEqual(await setsOf(world, 'moving'), [SET_A]);

    const moved = await fixture.repo({ 'policies/moving.native': CODE, 'policies/moving.yaml': `policy-sets: [${SET_B}]\n` });
    const text = await world.cli('--dry-run', moved);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /# policy "moving" will be updated in-place \(differs in policy-sets\)/);
    assert.match(text.stdout, new RegExp(`~ policy-sets = \\["${SET_A}"\\] -> \\["${SET_B}"\\]`));
    assert.doesNotMatch(text.stdout, /cannot change them/);
    const markdown = await world.cli('--dry-run', moved, ['--output', 'markdown']);
    assert.match(markdown.stdout, new RegExp(`\`policy-sets\`: \`\\["${SET_A}"\\]\` → \`\\["${SET_B}"\\]\``));
    const json = JSON.parse((await world.cli('--dry-run', moved, ['--output', 'json'])).stdout);
    const change = json.sources[0].changes[0];
    assert.deepEqual([change.action, change.fields['policy-sets']], ['update', { before: [SET_A], after: [SET_B] }]);

    const planFile = path.join(await fixture.repo({}), 'plan.json');
    const saved = await world.cli('--dry-run', moved, ['--out', planFile]);
    assert.equal(saved.code, 0, saved.stderr);
    assert.deepEqual(JSON.parse(await readFile(planFile, 'utf8')).sources[0].changes[0].fields['policy-sets'], { before: [SET_A], after: [SET_B] });
    await world.clearRequests();
    const applied = await world.cli('--reconcile', moved, ['--plan', planFile]);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    assert.deepEqual(await setsOf(world, 'moving'), [SET_B]);
    const writes = (await world.writes()).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(writes, [`POST /policy-sets/${SET_B}/relationships/policies`, `DELETE /policy-sets/${SET_A}/relationships/policies`]);
    const again = await world.cli('--dry-run', moved, ['--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
  });

  it('a settings file without policy-sets leaves membership alone; an empty list takes the policy out of every set, with a warning', async () => {
    const { world } = fixture;
    const inBoth = await fixture.repo({ 'policies/kept-out.native': CODE, 'policies/kept-out.yaml': `policy-sets: [${SET_A}, ${SET_B}]\n` });
    assert.equal((await world.cli('--reconcile', inBoth)).code, 0);
    assert.deepEqual(await setsOf(world, 'kept-out'), [SET_A, SET_B]);

    const unmanaged = await fixture.repo({ 'policies/kept-out.native': CODE, 'policies/kept-out.yaml': 'enforcement-level: advisory\n' });
    const untouched = await world.cli('--dry-run', unmanaged, ['--detailed-exitcode']);
    assert.equal(untouched.code, 0, untouched.stdout);

    const none = await fixture.repo({ 'policies/kept-out.native': CODE, 'policies/kept-out.yaml': 'policy-sets: []\n' });
    const planned = await world.cli('--dry-run', none);
    assert.match(planned.stdout, new RegExp(`~ policy-sets = \\["${SET_A}", "${SET_B}"\\] -> \\[\\]`));
    assert.match(planned.stdout, /policy "kept-out" declares policy-sets: \[\], so it is in no policy set and will not be enforced/);
    const applied = await world.cli('--reconcile', none);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    assert.deepEqual(await setsOf(world, 'kept-out'), []);
    const again = await world.cli('--dry-run', none, ['--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout);
  });

  it('a list that leaves out the sets: the policy is read again to compare them; when no answer names them, they are left as they are, with a warning', async () => {
    const { world } = fixture;
    const first = await fixture.repo({ 'policies/hidden.native': CODE, 'policies/hidden.yaml': `policy-sets: [${SET_A}]\n` });
    assert.equal((await world.cli('--reconcile', first)).code, 0);
    const moved = await fixture.repo({ 'policies/hidden.native': CODE, 'policies/hidden.yaml': `policy-sets: [${SET_B}]\n` });
    await world.setBehaviour({ 'list-omits-policy-sets': true, 'show-omits-policy-sets': true });
    try {
      const unknown = await world.cli('--dry-run', moved, ['--detailed-exitcode']);
      assert.equal(unknown.code, 0, unknown.stdout);
      assert.match(unknown.stdout, /policy "hidden" is in 1 policy sets, but the API names only 0 of them; its policy-sets are left as they are this pass/);
      await world.setBehaviour({ 'show-omits-policy-sets': false });
      const applied = await world.cli('--reconcile', moved);
      assert.equal(applied.code, 0, applied.stderr + applied.stdout);
      assert.deepEqual(await setsOf(world, 'hidden'), [SET_B]);
      const again = await world.cli('--dry-run', moved, ['--detailed-exitcode']);
      assert.equal(again.code, 0, again.stdout);
    } finally {
      await world.setBehaviour({ 'list-omits-policy-sets': false, 'show-omits-policy-sets': false });
    }
  });

  it('a set that no longer exists fails that change, naming the request', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/lost-set.native': CODE });
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    const gone = await fixture.repo({ 'policies/lost-set.native': CODE, 'policies/lost-set.yaml': 'policy-sets: [polset-GoneGoneGone0003]\n' });
    const applied = await world.cli('--reconcile', gone);
    assert.equal(applied.code, 1, applied.stdout);
    assert.match(applied.stdout + applied.stderr, /POST \/policy-sets\/polset-GoneGoneGone0003\/relationships\/policies failed: 404/);
  });
});
