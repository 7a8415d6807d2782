import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codeDigest } from '../src/code-content.js';
import { createDeclaredCache, readDeclared } from '../src/declared/index.js';
import { problemsOf } from './helpers/declared-problems.js';
import { useTempTrees } from './helpers/temp-tree.js';

describe('a declared cache reuses what unchanged files gave', () => {
  const dirOf = useTempTrees();

  it('reuses unchanged policies, re-reads changed code and settings, forgets removed files, and still reports problems', async () => {
    const dir = await dirOf({
      'policies/same.native': 'main = rule { true }\n',
      'policies/code.native': 'main = rule { 1 }\n',
      'policies/level.native': 'main = rule { 2 }\n',
      'policies/level.yaml': 'enforcement-level: advisory\n',
      'policies/gone.native': 'main = rule { 3 }\n',
    });
    const cache = createDeclaredCache();
    const first = await readDeclared(dir, { cache });
    const byName = (state: typeof first) => new Map(state.policies.map((p) => [p.name, p]));

    await writeFile(path.join(dir, 'policies/code.native'), 'main = rule { 10 }\n');
    await writeFile(path.join(dir, 'policies/level.yaml'), 'enforcement-level: hard-mandatory\n');
    await rm(path.join(dir, 'policies/gone.native'));
    const second = byName(await readDeclared(dir, { cache }));
    assert.equal(second.get('same'), byName(first).get('same'), 'an unchanged file is not read again');
    assert.equal(second.get('code')?.codeDigest, codeDigest('main = rule { 10 }\n'));
    assert.equal(second.get('level')?.enforcementLevel, 'hard-mandatory');
    assert.equal(second.has('gone'), false);

    await writeFile(path.join(dir, 'policies/same.yaml'), 'enforcement-level: nope\n');
    const problems = await problemsOf(readDeclared(dir, { cache }));
    assert.deepEqual(problems.map((p) => p.file), ['policies/same.yaml']);
  });
});
