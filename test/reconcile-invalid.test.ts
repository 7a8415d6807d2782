import assert from 'node:assert/strict';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { smallRepo } from './helpers/repos.js';
import { useWorld } from './helpers/world.js';

const native = 'main = rule { true }\n';

const CASES: Array<{ title: string; files: Record<string, string>; names: RegExp }> = [
  { title: 'a name with a dot', files: { 'policies/aws/foo.bar.native': native }, names: /policies\/aws\/foo\.bar\.native/ },
  {
    title: 'a name used twice across kinds and folders',
    files: { 'policies/a/twice.native': native, 'policies/b/twice.rego': 'package x\n', 'policies/b/twice.yaml': 'query: data.x.deny\n' },
    names: /policies\/a\/twice\.native[\s\S]*policies\/b\/twice\.rego|policies\/b\/twice\.rego[\s\S]*policies\/a\/twice\.native/,
  },
  { title: 'a level that does not fit the kind', files: { 'policies/p.native': native, 'policies/p.yaml': 'enforcement-level: mandatory\n' }, names: /policies\/p\.yaml:1/ },
  { title: 'query missing on opa', files: { 'policies/q.rego': 'package q\n' }, names: /policies\/q\.(rego|yaml)/ },
  { title: 'query present on native', files: { 'policies/n.native': native, 'policies/n.yaml': 'description: x\nquery: data.x\n' }, names: /policies\/n\.yaml:2/ },
  { title: 'an unknown key', files: { 'policies/u.native': native, 'policies/u.yaml': 'description: x\nenforcement_level: advisory\n' }, names: /policies\/u\.yaml:2/ },
  { title: 'settings without code', files: { 'policies/orphan.yaml': 'description: x\n' }, names: /policies\/orphan\.yaml/ },
  { title: 'more pools than the organization allows', files: { 'agent-pools/one.yaml': '{}\n', 'agent-pools/two.yaml': '{}\n' }, names: /agent-pools\/(one|two)\.yaml/ },
  {
    title: 'a member of two YAML sets that give it different levels',
    files: { 'policy-sets/a.yaml': 'enforcement-level: hard-mandatory\n', 'policy-sets/b.yaml': 'enforcement-level: soft-mandatory\n', 'policies/m.native': native, 'policies/m.yaml': 'policy-sets: [a, b]\n' },
    names: /policies\/m\.yaml: policy "m" is in policy sets that give their members different enforcement: policy-sets\/a\.yaml \(hard-mandatory\) and policy-sets\/b\.yaml \(soft-mandatory\)/,
  },
  { title: 'a YAML syntax error', files: { 'policies/s.native': native, 'policies/s.yaml': 'description: "open\nenforcement-level: advisory\n' }, names: /policies\/s\.yaml:\d/ },
];

const MODES = ['--validate', '--reconcile', '--dry-run'];

describe('an invalid repo exits 1, names the file, and writes nothing', () => {
  const fixture = useWorld();

  async function expectRefused(dir: string, names: RegExp): Promise<void> {
    const world = fixture.world;
    await world.clearRequests();
    for (const mode of MODES) {
      const run = await world.cli(mode, dir, ['--prune', '--source', 'default']);
      assert.equal(run.code, 1, `${mode}: ${run.stdout}${run.stderr}`);
      assert.match(run.stdout + run.stderr, names, mode);
    }
    assert.deepEqual(await world.requests(), [], 'no request reaches the API from an invalid repo');
  }

  for (const c of CASES) {
    it(c.title, async () => {
      const dir = await fixture.repo({ ...smallRepo(), ...c.files });
      await expectRefused(dir, c.names);
    });
  }

  it('code over 10,485,760 bytes', async () => {
    const dir = await fixture.repo(smallRepo());
    await writeFile(join(dir, 'policies/huge.native'), Buffer.alloc(10_485_761, 'a'));
    await expectRefused(dir, /policies\/huge\.native/);
  });

  it('a symlink that leaves the repo', async () => {
    const outside = await fixture.repo({ 'secret.native': native });
    const dir = await fixture.repo(smallRepo());
    await symlink(join(outside, 'secret.native'), join(dir, 'policies/leak.native'));
    await expectRefused(dir, /policies\/leak\.native/);
  });

  it('every problem at once', async () => {
    const dir = await fixture.repo({ ...smallRepo(), 'policies/p.native': native, 'policies/p.yaml': 'enforcement-level: mandatory\n', 'policies/orphan.yaml': '{}\n' });
    const run = await fixture.world.cli('--validate', dir);
    assert.equal(run.code, 1);
    assert.match(run.stdout + run.stderr, /policies\/p\.yaml:1/);
    assert.match(run.stdout + run.stderr, /policies\/orphan\.yaml/);
  });

  it('no prune after a failed read of the live state', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    const emptied = await fixture.repo({ 'policies/require-tags.native': native });
    // A 403 is not retried, so the read fails at once.
    await world.addFaults({ kind: 'status', status: 403, method: 'GET', path: '/download$|/policies/[^/]+$', count: 0 });
    try {
      await world.clearRequests();
      const run = await world.cli('--reconcile', emptied, ['--prune', '--source', 'default', '--force']);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout + run.stderr, /example-org/);
      assert.deepEqual(await world.writes(), []);
    } finally {
      await world.clearFaults();
    }
  });
});
