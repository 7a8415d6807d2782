import assert from 'node:assert/strict';
import { truncate } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codeDigest } from '../src/code-content.js';
import { readDeclared, readVerifiedCode, withCodeTexts, type DeclaredPolicy } from '../src/declared/index.js';
import { problemFor, problemsOf } from './helpers/declared-problems.js';
import { useTempTrees, writeTree, type Tree } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';

describe('which files of the declared repo are policies', () => {
  const tree = useTempTrees('declared-');
  async function names(files: Tree): Promise<string[]> {
    return (await readDeclared(await tree(files))).policies.map((p) => p.name);
  }

  it('reads .native and .rego at any depth and ignores other files', async () => {
    const found = await names({
      'policies/top.native': NATIVE,
      'policies/a/b/c/deep.rego': 'package deep\n',
      'policies/a/b/c/deep.yaml': 'query: data.deep.deny\n',
      'policies/README.md': '# policies\n',
      'policies/a/notes.txt': 'x',
      'lib/helper.rego': 'package lib\n',
      'modules/shared.native': NATIVE,
      'LICENSE': 'MIT',
    });
    assert.deepEqual(found, ['deep', 'top']);
  });

  it('a repo without policies/ declares no policies', async () => {
    assert.deepEqual(await readDeclared(await tree({ 'README.md': '# empty\n' })), { policies: [], pools: [], warnings: [] });
  });

  it('skips test, tests, testdata and mocks folders at any depth, _test.rego files, dotfiles and dot-folders', async () => {
    const found = await names({
      'policies/kept.native': NATIVE,
      'policies/test/t1.native': NATIVE,
      'policies/aws/tests/t2.native': NATIVE,
      'policies/aws/deep/testdata/t3.native': NATIVE,
      'policies/gcp/mocks/mock-tfplan.v2.native': NATIVE,
      'policies/gcp/mocks/orphan.yaml': 'description: x\n',
      'policies/opa/rule_test.rego': 'package rule\n',
      'policies/.hidden.native': NATIVE,
      'policies/.git/objects/x.native': NATIVE,
      'policies/aws/.draft/y.native': NATIVE,
      'policies/testing/kept2.native': NATIVE,
    });
    assert.deepEqual(found, ['kept', 'kept2']);
  });

  it('.syncignore (gitignore syntax, relative to the root) leaves files and folders out', async () => {
    const found = await names({
      '.syncignore': '# drafts\npolicies/drafts/\n*-wip.native\n!keep-wip.native\nagent-pools/old.yaml\n',
      'policies/live.native': NATIVE,
      'policies/drafts/draft.native': NATIVE,
      'policies/drafts/draft.yaml': 'bad-key: 1\n',
      'policies/aws/thing-wip.native': NATIVE,
      'policies/aws/keep-wip.native': NATIVE,
      'agent-pools/old.yaml': 'not-a-key: true\n',
    });
    assert.deepEqual(found, ['keep-wip', 'live']);
  });

  it('code is hashed, not kept, and read back byte for byte: CRLF line ends, a byte order mark, non-ASCII text', async () => {
    const code = '\uFEFF# règle — 規則\r\nmain = rule {\r\n  true\r\n}\r\n';
    const declared = await readDeclared(await tree({ 'policies/crlf.native': code }));
    const policy = declared.policies[0] as DeclaredPolicy;
    assert.equal(policy.code, null);
    assert.equal(policy.codeDigest, codeDigest('# règle — 規則\nmain = rule {\n  true\n}\n'));
    assert.deepEqual(await readVerifiedCode(policy), Buffer.from(code));
    const shown = await withCodeTexts(declared, new Set(['crlf']));
    assert.equal(shown.policies[0]?.code, code);
  });

  it('a stem that is not a valid name is an error naming the file', async () => {
    const problems = await problemsOf(readDeclared(await tree({ 'policies/aws/foo.bar.native': NATIVE, 'policies/ok.native': NATIVE, 'agent-pools/pool one.yaml': '' })));
    assert.match(problemFor(problems, 'policies/aws/foo.bar.native').message, /"foo\.bar" is not a valid policy name/);
    assert.match(problemFor(problems, 'agent-pools/pool one.yaml').message, /"pool one" is not a valid agent pool name/);
    assert.equal(problems.length, 2);
  });

  it('a name used twice across kinds and folders is an error naming both files', async () => {
    const problems = await problemsOf(
      readDeclared(await tree({ 'policies/a/twice.native': NATIVE, 'policies/b/twice.rego': 'package twice\n', 'policies/b/twice.yaml': 'query: data.twice.deny\n' })),
    );
    const problem = problemFor(problems, 'policies/a/twice.native');
    assert.match(problem.message, /policy name "twice" is used by 2 files \(policies\/a\/twice\.native, policies\/b\/twice\.rego\)/);
  });

  it('a settings file without code beside it is an error', async () => {
    const problems = await problemsOf(readDeclared(await tree({ 'policies/a/lonely.yaml': 'description: x\n', 'policies/b/lonely.native': NATIVE })));
    assert.match(problemFor(problems, 'policies/a/lonely.yaml').message, /settings file without policy code: expected lonely\.native, lonely\.sentinel or lonely\.rego/);
  });

  it('code over 10,485,760 bytes is an error naming the file and its size', async () => {
    const dir = await tree({ 'policies/huge.native': '', 'policies/limit.native': '' });
    await truncate(path.join(dir, 'policies/huge.native'), 10_485_761);
    await truncate(path.join(dir, 'policies/limit.native'), 10_485_760);
    const problems = await problemsOf(readDeclared(dir));
    assert.equal(problems.length, 1);
    assert.match(problemFor(problems, 'policies/huge.native').message, /is 10485761 bytes; policy code may be at most 10485760 bytes/);
  });

  it('code that is not UTF-8 is an error', async () => {
    const problems = await problemsOf(readDeclared(await tree({ 'policies/latin1.native': Buffer.from([0x23, 0x20, 0xe9, 0x0a]) })));
    assert.match(problemFor(problems, 'policies/latin1.native').message, /not valid UTF-8/);
  });

  it('follows symbolic links that stay inside the repo', async () => {
    const dir = await tree({
      'shared/common.native': NATIVE,
      'shared/set/linked-dir.native': NATIVE,
      'policies/linked.native': { symlink: '../shared/common.native' },
      'policies/set': { symlink: '../shared/set' },
    });
    const { policies } = await readDeclared(dir);
    assert.deepEqual(policies.map((p) => [p.name, p.file, p.codeDigest]), [
      ['linked', 'policies/linked.native', codeDigest(NATIVE)],
      ['linked-dir', 'policies/set/linked-dir.native', codeDigest(NATIVE)],
    ]);
  });

  it('refuses symbolic links (file or folder) whose target leaves the repo, and link loops', async () => {
    const outside = await tree({ 'secret.native': NATIVE, 'dir/x.native': NATIVE });
    const dir = await tree({
      'policies/ok.native': NATIVE,
      'policies/leak.native': { symlink: path.join(outside, 'secret.native') },
      'policies/leak-dir': { symlink: path.join(outside, 'dir') },
      'policies/loop/back': { symlink: '..' },
      'policies/README.md': { symlink: path.join(outside, 'secret.native') },
    });
    const problems = await problemsOf(readDeclared(dir));
    assert.match(problemFor(problems, 'policies/leak.native').message, /is a symbolic link to .*secret\.native, outside the source root/);
    assert.match(problemFor(problems, 'policies/leak-dir').message, /outside the source root/);
    assert.match(problemFor(problems, 'policies/loop/back').message, /symbolic link to one of its own parent folders/);
    assert.equal(problems.length, 3, 'a link to a file that is not read (README.md) is harmless');
  });

  it('a source root that is itself a symbolic link reads normally', async () => {
    const real = await tree({ 'policies/p.native': NATIVE });
    const holder = await tree({});
    const linkedRoot = path.join(holder, 'repo');
    await writeTree(holder, { repo: { symlink: real } });
    assert.deepEqual((await readDeclared(linkedRoot)).policies.map((p) => p.name), ['p']);
  });

  it('several invalid files give all their problems in one error, sorted by file', async () => {
    const dir = await tree({
      'policies/a.native': NATIVE,
      'policies/a.yaml': 'enforcement-level: mandatory\n',
      'policies/b.rego': 'package b\n',
      'policies/c.yaml': '{}\n',
      'policies/d.e.native': NATIVE,
      'agent-pools/pool.yaml': 'organization-scoped: yes\n',
    });
    const problems = await problemsOf(readDeclared(dir));
    assert.deepEqual(
      problems.map((p) => [p.file, p.line]),
      [
        ['agent-pools/pool.yaml', 1],
        ['policies/a.yaml', 1],
        ['policies/b.rego', undefined],
        ['policies/c.yaml', undefined],
        ['policies/d.e.native', undefined],
      ],
    );
  });

  it('a missing source folder is a ValidationError', async () => {
    const problems = await problemsOf(readDeclared(path.join(await tree({}), 'nope')));
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.message ?? '', /does not exist/);
  });
});
