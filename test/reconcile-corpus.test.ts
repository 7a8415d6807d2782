import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readDeclared, readVerifiedCode } from '../src/declared/index.js';
import { stripMarker } from '../src/plan/marker.js';
import { CORPUS } from './helpers/repos.js';
import { World } from './helpers/world.js';

const CORPORA = [
  { name: 'sentinel-examples', policies: 31 },
  { name: 'avm-rego', policies: 29 },
];

for (const corpus of CORPORA) {
  describe(`reconcile the ${corpus.name} corpus`, () => {
    const dir = path.join(CORPUS, corpus.name);
    let world: World;
    before(async () => {
      world = await World.start();
    });
    after(() => world.close());

    it('makes the API match the repo, then a dry run finds nothing and writes nothing', async () => {
      const applied = await world.cli('--reconcile', dir);
      assert.equal(applied.code, 0, applied.stderr + applied.stdout);
      assert.match(applied.stdout, new RegExp(`Apply complete! Resources: ${corpus.policies} created`));

      const declared = await readDeclared(dir);
      assert.equal(declared.policies.length, corpus.policies);
      const live = (await world.organization()).policies;
      assert.equal(live.length, corpus.policies);
      const liveByName = new Map(live.map((p) => [p['name'] as string, p]));
      for (const policy of declared.policies) {
        const found = liveByName.get(policy.name);
        assert.ok(found, `${policy.name} missing from the API`);
        assert.equal(found['kind'], policy.kind, policy.name);
        assert.equal(found['enforcement-level'], policy.enforcementLevel, policy.name);
        assert.equal(found['query'] ?? null, policy.query, policy.name);
        assert.equal(stripMarker((found['description'] as string | null) ?? null), policy.description, policy.name);
        assert.equal(found['code'], (await readVerifiedCode(policy)).toString('utf8'), `${policy.name}: code bytes differ`);
      }

      await world.clearRequests();
      const dryRun = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
      assert.equal(dryRun.code, 0, dryRun.stderr + dryRun.stdout);
      assert.match(dryRun.stdout, /No changes/);
      assert.deepEqual(await world.writes(), []);
    });
  });
}
