import assert from 'node:assert/strict';
import { cp, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CORPUS } from './helpers/repos.js';
import { World } from './helpers/world.js';

/** Renames every `.native` file under `dir` to `.sentinel`; resolves with how many. */
async function renameNative(dir: string): Promise<number> {
  let renamed = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.native')) continue;
    const from = path.join(entry.parentPath, entry.name);
    await rename(from, from.replace(/\.native$/, '.sentinel'));
    renamed += 1;
  }
  return renamed;
}

describe('the sentinel-examples corpus with .sentinel files, against an API that calls the kind sentinel', () => {
  let world: World;
  let dir: string;
  before(async () => {
    world = await World.start({ nativeKind: 'sentinel' });
    dir = await mkdtemp(path.join(tmpdir(), 'pps-corpus-sentinel-'));
    await cp(path.join(CORPUS, 'sentinel-examples'), dir, { recursive: true });
  });
  after(async () => {
    await world.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('round-trips: the API matches the repo, then a dry run finds nothing and writes nothing', async () => {
    assert.ok((await renameNative(dir)) > 31);
    const applied = await world.cli('--reconcile', dir, ['--native-kind', 'sentinel']);
    assert.equal(applied.code, 0, applied.stderr + applied.stdout);
    assert.match(applied.stdout, /Apply complete! Resources: 31 created/);
    const live = await world.policies();
    assert.equal(live.length, 31);
    assert.ok(live.every((p) => p.kind === 'sentinel'));
    await world.clearRequests();
    const dryRun = await world.cli('--dry-run', dir, ['--native-kind', 'sentinel', '--detailed-exitcode']);
    assert.equal(dryRun.code, 0, dryRun.stderr + dryRun.stdout);
    assert.match(dryRun.stdout, /No changes/);
    assert.deepEqual(await world.writes(), []);
  });
});
