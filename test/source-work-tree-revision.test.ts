/**
 * The revision a plan of a --source-dir names: the commit of the work tree holding it (found from any folder inside
 * it, and through a linked work tree's `.git` file), and no git started at all for a folder outside every work tree.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { workTreeRevision } from '../src/source/work-tree-revision.js';
import { gitRepo } from './helpers/git-repo.js';
import { tempTree } from './helpers/temp-tree.js';

describe('the revision of a --source-dir', () => {
  it('is the commit of the work tree holding the folder, from a folder below its root too', async (t) => {
    const repo = await gitRepo(t);
    const sha = await repo.commit({ 'policies/a.native': 'main = rule { true }\n' });
    assert.equal(await workTreeRevision(repo.dir), sha);
    assert.equal(await workTreeRevision(path.join(repo.dir, 'policies')), sha);
  });

  it('is null outside any work tree, without starting git', async (t) => {
    const bin = await tempTree(t, { git: '#!/bin/sh\ntouch "$(dirname "$0")/started"\nexit 128\n' });
    await chmod(path.join(bin, 'git'), 0o755);
    const outside = await tempTree(t, { 'policies/a.native': 'main = rule { true }\n' });
    const saved = process.env['PATH'];
    process.env['PATH'] = `${bin}${path.delimiter}${saved ?? ''}`;
    try {
      assert.equal(await workTreeRevision(outside), null);
      assert.equal(existsSync(path.join(bin, 'started')), false, 'git was started for a folder outside every work tree');
      // The same git is started where a .git file (a linked work tree) says there may be one.
      const linked = await tempTree(t, { '.git': 'gitdir: /nowhere\n' });
      assert.equal(await workTreeRevision(linked), null);
      assert.equal(existsSync(path.join(bin, 'started')), true, 'a .git file is a work tree to ask git about');
    } finally {
      if (saved === undefined) delete process.env['PATH'];
      else process.env['PATH'] = saved;
    }
  });
});
