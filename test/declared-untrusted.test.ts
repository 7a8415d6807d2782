import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { problemFor, problemsOf } from './helpers/declared-problems.js';
import { useTempTrees } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';
const POINTER = [
  'version https://git-lfs.github.com/spec/v1',
  'oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393',
  'size 12345',
  '',
].join('\n');

describe('content that is not what it claims to be is refused', () => {
  const dirOf = useTempTrees();

  it('a Git LFS pointer in place of policy code, a settings file, a pool file or .syncignore is a problem naming the file', async () => {
    const dir = await dirOf({
      'policies/a.native': POINTER,
      'policies/b.rego': 'package b\n',
      'policies/b.yaml': POINTER,
      'policies/c.native': POINTER.replace(/\n/g, '\r\n'),
      'agent-pools/main.yaml': POINTER,
      'policies/ok.native': `# version https://git-lfs.github.com/spec/v1\n${NATIVE}`,
    });
    const problems = await problemsOf(readDeclared(dir));
    for (const file of ['policies/a.native', 'policies/b.yaml', 'policies/c.native', 'agent-pools/main.yaml']) {
      assert.match(problemFor(problems, file).message, /is a Git LFS pointer, not the file: fetch the LFS objects \(git lfs install && git lfs pull\)/);
    }
    assert.equal(problems.length, 4, JSON.stringify(problems));

    const ignored = await dirOf({ 'policies/p.native': NATIVE, '.syncignore': POINTER });
    assert.match(problemFor(await problemsOf(readDeclared(ignored)), '.syncignore').message, /is a Git LFS pointer/);
  });

  it('policy names that differ only in case are duplicates', async () => {
    const dir = await dirOf({ 'policies/Foo.native': NATIVE, 'policies/team/foo.native': NATIVE });
    const problem = problemFor(await problemsOf(readDeclared(dir)), 'policies/Foo.native');
    assert.match(problem.message, /is used by 2 files \(policies\/Foo\.native, policies\/team\/foo\.native\).*differ only in case/);
  });
});
