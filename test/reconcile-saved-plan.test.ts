import assert from 'node:assert/strict';
import { readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { writeTree } from './helpers/temp-tree.js';
import { useWorld, type World } from './helpers/world.js';

interface SavedDocument {
  format_version: string;
  saved_plan_version: string;
  sources: Array<{
    name: string;
    organization: string;
    revision: string | null;
    changes: Array<{
      resource: string; name: string; id: string | null; action: string;
      fields: Record<string, unknown>;
      live: Record<string, unknown> | null;
      declared: Record<string, unknown> | null;
    }>;
  }>;
}

const BASE = {
  'policies/keep-level.native': 'main = rule { true }\n',
  'policies/keep-level.yaml': 'enforcement-level: advisory\n',
  'policies/code-drift.native': 'main = rule { 1 == 1 }\n',
};

async function policyId(world: World, name: string): Promise<string> {
  const policy = (await world.policies()).find((p) => p.name === name);
  assert.ok(policy, `${name} exists`);
  return policy.id;
}

describe('saved plans: --dry-run --out FILE, then --reconcile --plan FILE', () => {
  const fixture = useWorld();

  /** A repo in sync, then changed: an update of keep-level, a code change of code-drift, a new policy. */
  async function planned(name: string): Promise<{ dir: string; file: string }> {
    const world = fixture.world;
    const dir = await fixture.repo(Object.fromEntries(Object.entries(BASE).map(([k, v]) => [k.replace('policies/', `policies/${name}/${name}-`), v])));
    assert.equal((await world.cli('--reconcile', dir, ['--source', name])).code, 0);
    await writeTree(dir, {
      [`policies/${name}/${name}-keep-level.yaml`]: 'enforcement-level: hard-mandatory\n',
      [`policies/${name}/${name}-code-drift.native`]: 'main = rule { 2 == 2 }\n',
      [`policies/${name}/${name}-new.native`]: 'main = rule { "new" == "new" }\n',
    });
    const file = path.join(await fixture.repo(), 'plan.json');
    const run = await world.cli('--dry-run', dir, ['--source', name, '--out', file, '--detailed-exitcode']);
    assert.equal(run.code, 2, run.stdout + run.stderr);
    return { dir, file };
  }

  it('saves the source, organization, revision, every change with its fields and fingerprints, and a format version', async () => {
    const world = fixture.world;
    const { file } = await planned('saved');
    const document = JSON.parse(await readFile(file, 'utf8')) as SavedDocument;
    await unlink(file);
    assert.equal(document.saved_plan_version, '2');
    assert.equal(document.format_version, '1');
    const source = document.sources[0]!;
    assert.deepEqual([source.name, source.organization, source.revision], ['saved', ORG, null]);
    assert.deepEqual(source.changes.map((c) => `${c.action} ${c.name}`), ['create saved-new', 'update saved-code-drift', 'update saved-keep-level']);
    const update = source.changes.find((c) => c.name === 'saved-keep-level')!;
    assert.deepEqual(update.fields['enforcement-level'], { before: 'advisory', after: 'hard-mandatory' });
    assert.equal(update.live?.['id'], await policyId(world, 'saved-keep-level'));
    assert.ok('updatedAt' in update.live!);
    assert.equal(update.live?.['enforcementLevel'], 'advisory');
    assert.match(String((update.declared?.['code'] as { sha256?: unknown } | undefined)?.sha256), /^[0-9a-f]{64}$/);
    const create = source.changes.find((c) => c.action === 'create')!;
    assert.equal(create.live, null, 'a creation was planned against nothing of that name');
  });

  it('applies exactly the plan: files declared after it was made are not applied', async () => {
    const world = fixture.world;
    const { dir, file } = await planned('exact');
    await writeTree(dir, { 'policies/exact/exact-later.native': 'main = rule { "later" == "later" }\n' });
    const run = await world.cli('--reconcile', dir, ['--source', 'exact', '--plan', file]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /1 created, 2 updated, 0 replaced, 0 deleted/);
    assert.match(run.stdout, /code += \(1 line, 31 bytes\)/, 'the plan printed before the apply describes the saved code');
    const policies = await world.policies();
    assert.ok(policies.some((p) => p.name === 'exact-new'));
    assert.ok(!policies.some((p) => p.name === 'exact-later'), 'a file declared after the plan was applied');
    assert.equal(policies.find((p) => p.name === 'exact-keep-level')?.['enforcement-level'], 'hard-mandatory');
    assert.equal(policies.find((p) => p.name === 'exact-code-drift')?.code, 'main = rule { 2 == 2 }\n');
    const next = await world.cli('--dry-run', dir, ['--source', 'exact', '--output', 'json']);
    const changes = (JSON.parse(next.stdout) as SavedDocument).sources[0]!.changes;
    assert.deepEqual(changes.map((c) => `${c.action} ${c.name}`), ['create exact-later']);
  });

  const stale: Array<[string, (world: World, name: string, dir: string) => Promise<void>, RegExp]> = [
    ['a planned policy changed by hand', async (world, name) => {
      const id = await policyId(world, `${name}-keep-level`);
      const res = await world.call('PATCH', `/policies/${id}`, { body: { data: { type: 'policies', attributes: { description: 'by hand' } } } });
      assert.equal(res.status, 200, res.text);
    }, /stale: update policy "[\w-]+-keep-level": the live policy changed since the plan was made/],
    ['a planned policy deleted', async (world, name) => {
      const res = await world.call('DELETE', `/policies/${await policyId(world, `${name}-code-drift`)}`);
      assert.equal(res.status, 204, res.text);
    }, /stale: update policy "[\w-]+-code-drift": the live policy was deleted since the plan was made/],
    ['a policy to create created since', async (world, name) => {
      const res = await world.call('POST', `/organizations/${ORG}/policies`, {
        body: { data: { type: 'policies', attributes: { name: `${name}-new`, kind: 'native', 'enforcement-level': 'advisory' } } },
      });
      assert.equal(res.status, 200, res.text);
    }, /stale: create policy "[\w-]+-new": a live policy of that name was created since the plan was made/],
    ['the declared code changed since', async (_world, name, dir) => {
      await writeFile(path.join(dir, `policies/${name}/${name}-code-drift.native`), 'main = rule { 3 == 3 }\n');
    }, /stale: update policy "[\w-]+-code-drift": its declaration \(settings or code\) changed since the plan was made/],
  ];
  for (const [what, change, message] of stale) {
    it(`refuses a stale plan with no write: ${what}`, async () => {
      const world = fixture.world;
      const name = `stale${stale.findIndex(([w]) => w === what)}`;
      const { dir, file } = await planned(name);
      await change(world, name, dir);
      await world.clearRequests();
      const run = await world.cli('--reconcile', dir, ['--source', name, '--plan', file]);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout, /the saved plan is stale: 1 of its changes no longer match/);
      assert.match(run.stdout, message);
      assert.deepEqual(await world.writes(), [], 'no write');
    });
  }

  it('refuses a plan made for another source or organization before any request', async () => {
    const world = fixture.world;
    const { dir, file } = await planned('mine');
    await world.clearRequests();
    const otherSource = await world.cli('--reconcile', dir, ['--source', 'theirs', '--plan', file]);
    assert.equal(otherSource.code, 1);
    assert.match(otherSource.stderr, /has no plan for source "theirs"/);
    const otherOrg = await world.cli('--reconcile', dir, ['--source', 'mine', '--plan', file, '--organization', 'other-org']);
    assert.equal(otherOrg.code, 1, otherOrg.stderr);
    assert.match(otherOrg.stderr, /is for organization "example-org", but source "mine" syncs organization "other-org"; refusing/);
    assert.deepEqual(await world.requests(), []);
  });

  it('--out goes with --dry-run and --plan with --reconcile', async () => {
    const world = fixture.world;
    const dir = await fixture.repo({ 'policies/x.native': 'main = rule { true }\n' });
    assert.match((await world.cli('--reconcile', dir, ['--out', 'f.json'])).stderr, /--out FILE goes with --dry-run/);
    assert.match((await world.cli('--dry-run', dir, ['--plan', 'f.json'])).stderr, /--plan FILE goes with --reconcile/);
    const notAPlan = path.join(dir, 'not-a-plan.json');
    await writeFile(notAPlan, '{"format_version":"1","sources":[]}');
    assert.match((await world.cli('--reconcile', dir, ['--plan', notAPlan])).stderr, /is not a saved plan \(no saved_plan_version\)/);
  });
});
