import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { POLICY_SET } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const CODE = (n: number) => `main = rule { ${n} >= 0 }\n`;
const OPA = 'package shared\n\nimport rego.v1\n\ndeny contains "no" if { false }\n';

describe('ownership between sources', () => {
  const fixture = useWorld();

  it('refuses --prune with --source-dir unless --source names the source, before any request', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/p.native': CODE(1) });
    await world.clearRequests();
    for (const mode of ['--reconcile', '--dry-run']) {
      const run = await world.cli(mode, dir, ['--prune']);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stderr, /--prune with --source-dir needs --source NAME/);
    }
    assert.deepEqual(await world.requests(), []);
  });

  it('two repos named as two sources prune one organization without deleting each other\'s policies', async () => {
    const { world } = fixture;
    const a = await fixture.repo({ 'policies/team-a-1.native': CODE(1), 'policies/team-a-2.native': CODE(2) });
    const b = await fixture.repo({ 'policies/team-b-1.native': CODE(3) });
    assert.equal((await world.cli('--reconcile', a, ['--source', 'team-a', '--prune'])).code, 0);
    const run = await world.cli('--reconcile', b, ['--source', 'team-b', '--prune']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const policies = (await world.organization()).policies;
    const names = policies.map((p) => String(p['name'])).filter((n) => n.startsWith('team-')).sort();
    assert.deepEqual(names, ['team-a-1', 'team-a-2', 'team-b-1']);
    const markerOf = (name: string) => String(policies.find((p) => p['name'] === name)?.['description']);
    assert.match(markerOf('team-a-1'), /source=team-a -->$/);
    assert.match(markerOf('team-b-1'), /source=team-b -->$/);
  });

  it('a policy another source owns is a conflict in every output, exit 1, never written; --adopt takes it over', async () => {
    const { world } = fixture;
    const a = await fixture.repo({ 'policies/shared-one.native': CODE(1) });
    const b = await fixture.repo({ 'policies/shared-one.native': CODE(2), 'policies/b-only.native': CODE(3) });
    assert.equal((await world.cli('--reconcile', a, ['--source', 'owner-a'])).code, 0);

    await world.clearRequests();
    const conflict = /conflict: policy \\?"shared-one\\?" carries the ownership marker of source \\?"owner-a\\?"/;
    for (const output of ['text', 'json', 'markdown']) {
      const run = await world.cli('--dry-run', b, ['--source', 'owner-b', '--output', output, '--detailed-exitcode']);
      assert.equal(run.code, 1, `${output}: ${run.stdout}${run.stderr}`);
      assert.match(run.stdout, conflict, output);
    }
    const json = JSON.parse((await world.cli('--dry-run', b, ['--source', 'owner-b', '--output', 'json'])).stdout) as {
      sources: Array<{ errors: string[]; changes: Array<{ name: string }> }>;
    };
    assert.match(json.sources[0]!.errors.join('\n'), conflict);
    assert.ok(!json.sources[0]!.changes.some((c) => c.name === 'shared-one'), 'the conflict is no change');
    const refused = await world.cli('--reconcile', b, ['--source', 'owner-b']);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stdout, conflict);
    assert.deepEqual(await world.writes(), [], 'nothing was written');

    const adopted = await world.cli('--reconcile', b, ['--source', 'owner-b', '--adopt']);
    assert.equal(adopted.code, 0, adopted.stdout + adopted.stderr);
    const shared = (await world.organization()).policies.find((p) => p['name'] === 'shared-one');
    assert.match(String(shared?.['description']), /source=owner-b -->$/);
    assert.equal(shared?.['code'], CODE(2));
  });

  it('a kind change of a policy in a policy set keeps the set, counts toward max-deletes, and names the set when it is lost', async () => {
    const { world } = fixture;
    const native = await fixture.repo({
      'policies/kind-a.native': CODE(1),
      'policies/kind-a.yaml': `policy-sets: [${POLICY_SET}]\n`,
      'policies/kind-b.native': CODE(2),
      'policies/kind-b.yaml': `policy-sets: [${POLICY_SET}]\n`,
    });
    const opa = await fixture.repo({
      'policies/kind-a.rego': OPA,
      'policies/kind-a.yaml': 'query: data.shared.deny\nenforcement-level: mandatory\n',
      'policies/kind-b.rego': OPA,
      'policies/kind-b.yaml': 'query: data.shared.deny\nenforcement-level: mandatory\n',
    });
    assert.equal((await world.cli('--reconcile', native, ['--source', 'kinds'])).code, 0);

    const guarded = await world.cli('--reconcile', opa, ['--source', 'kinds'], 'warn');
    const refusedByGuard = await world.cli('--dry-run', opa, ['--source', 'kinds']);
    assert.equal(guarded.code, 0, 'two replaces are within max-deletes 10');
    assert.equal(refusedByGuard.code, 0);
    const sets = (name: string) => world.organization().then((org) => org.policies.find((p) => p['name'] === name));
    assert.equal((await sets('kind-a'))?.['kind'], 'opa');
    assert.deepEqual((await sets('kind-a'))?.['policy-set-ids'], [POLICY_SET], 'the replacement kept the policy set');

    // Back to native, with the first create refused: that policy is lost, and the error names its set.
    await world.addFaults({ kind: 'status', status: 422, method: 'POST', path: '/policies$', count: 1 });
    let failed;
    try {
      failed = await world.cli('--reconcile', await fixture.repo({
        'policies/kind-a.native': CODE(1),
        'policies/kind-b.native': CODE(2),
      }), ['--source', 'kinds']);
    } finally {
      await world.clearFaults();
    }
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    assert.match(failed.stdout, new RegExp(`replace policy "kind-[ab]" failed: .*422.*policy sets could not be restored: ${POLICY_SET}`));
  });

  it('a replace counts toward max-deletes', async () => {
    const { world } = fixture;
    const files: Record<string, string> = {};
    const changed: Record<string, string> = {};
    for (let i = 0; i < 11; i += 1) {
      files[`policies/many-${i}.native`] = CODE(i);
      changed[`policies/many-${i}.rego`] = OPA;
      changed[`policies/many-${i}.yaml`] = 'query: data.shared.deny\n';
    }
    assert.equal((await world.cli('--reconcile', await fixture.repo(files), ['--source', 'many'])).code, 0);
    await world.clearRequests();
    const run = await world.cli('--reconcile', await fixture.repo(changed), ['--source', 'many']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /would delete 11 resources \(11 of them replaced: deleted, then created again\), more than max-deletes \(10\)/);
    assert.deepEqual(await world.writes(), []);
  });
});
