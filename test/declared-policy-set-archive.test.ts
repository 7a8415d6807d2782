/**
 * A versioned set's archive holds only the set's own files (by their real paths), sorted, never its settings file;
 * its size is refused from the listing before anything is read; its digest does not see line ends.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { truncate } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { MAX_SET_FILES, MAX_SET_TAR_BYTES, readDeclared, setArchiveBody, type DeclaredPolicySet } from '../src/declared/index.js';
import { packSet, type ArchiveFile, type PackPlace } from '../src/declared/policy-set-archive.js';
import { readTarGz } from '../src/emulator/tar.js';
import { problemFor, problemsOf } from './helpers/declared-problems.js';
import { useTempTrees, type Tree } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';
const CONFIG = 'policy "one" {\n  source = "./one.sentinel"\n  enforcement_level = "advisory"\n}\n';

async function onlySet(dir: string): Promise<DeclaredPolicySet> {
  const sets = (await readDeclared(dir)).policySets ?? [];
  assert.equal(sets.length, 1);
  return sets[0] as DeclaredPolicySet;
}

/** The paths of the archive the upload sends, in its order. */
async function uploaded(set: DeclaredPolicySet): Promise<string[]> {
  assert.ok(set.content);
  return readTarGz(await setArchiveBody(set.content)).map((entry) => entry.path);
}

describe('a set archive holds only the set\'s own files', () => {
  const dirOf = useTempTrees();

  it('a link in the folder to the checkout\'s .git is a problem naming the link, once, and nothing is read', async () => {
    const dir = await dirOf({
      '.git/config': '[http]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      'policy-sets/evil/sentinel.hcl': CONFIG,
      'policy-sets/evil/one.sentinel': NATIVE,
      'policy-sets/evil/gitdir': { symlink: '../../.git' },
    });
    const problems = await problemsOf(readDeclared(dir));
    assert.deepEqual(problems, [{
      file: 'policy-sets/evil/gitdir',
      message: 'is a symbolic link to ../../.git, outside the policy set\'s folder policy-sets/evil; a set holds only its own files: move the target into the folder',
    }]);
  });

  it('a link to a file of the repo outside the folder is a problem naming it', async () => {
    const dir = await dirOf({
      'lib/common.sentinel': NATIVE,
      'policy-sets/s/sentinel.hcl': CONFIG,
      'policy-sets/s/one.sentinel': NATIVE,
      'policy-sets/s/common.sentinel': { symlink: '../../lib/common.sentinel' },
    });
    const problem = problemFor(await problemsOf(readDeclared(dir)), 'policy-sets/s/common.sentinel');
    assert.equal(problem.message, 'is a symbolic link to ../../lib/common.sentinel, outside the policy set\'s folder policy-sets/s; a set holds only its own files: move the target into the folder');
  });

  it('a link inside the folder is packed under its own name; one to a dot-folder or a test folder of the set, by the rules on its real path, is left out', async () => {
    const set = await onlySet(await dirOf({
      'policy-sets/s/sentinel.hcl': CONFIG,
      'policy-sets/s/one.sentinel': NATIVE,
      'policy-sets/s/alias.sentinel': { symlink: 'one.sentinel' },
      'policy-sets/s/.hidden/key.pem': 'secret\n',
      'policy-sets/s/tests/fixture.json': '{}\n',
      'policy-sets/s/key.pem': { symlink: '.hidden/key.pem' },
      'policy-sets/s/fixture.json': { symlink: 'tests/fixture.json' },
    }));
    assert.deepEqual(await uploaded(set), ['alias.sentinel', 'one.sentinel', 'sentinel.hcl']);
  });

  it('.syncignore applies to a link\'s real path too', async () => {
    const set = await onlySet(await dirOf({
      '.syncignore': 'policy-sets/s/build/\n',
      'policy-sets/s/sentinel.hcl': CONFIG,
      'policy-sets/s/one.sentinel': NATIVE,
      'policy-sets/s/build/out.bin': 'x\n',
      'policy-sets/s/out.bin': { symlink: 'build/out.bin' },
    }));
    assert.deepEqual(await uploaded(set), ['one.sentinel', 'sentinel.hcl']);
  });

  it('policy-set.yaml is never packed, by its own name or through a link', async () => {
    const set = await onlySet(await dirOf({
      'policy-sets/s/sentinel.hcl': CONFIG,
      'policy-sets/s/one.sentinel': NATIVE,
      'policy-sets/s/policy-set.yaml': 'description: the set\n',
      'policy-sets/s/copy.yaml': { symlink: 'policy-set.yaml' },
    }));
    assert.equal(set.description, 'the set');
    assert.deepEqual(await uploaded(set), ['one.sentinel', 'sentinel.hcl']);
    assert.deepEqual(set.content?.files.map((f) => f.path), ['one.sentinel', 'sentinel.hcl']);
  });

  it('the archive\'s entries are sorted by path, whatever order the folder lists them in', async () => {
    const tree: Tree = { 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE };
    for (const name of ['b/z.txt', 'a.txt', 'B.txt', 'b/a.txt', 'a-b.txt', 'a/b.txt']) tree[`policy-sets/s/${name}`] = `${name}\n`;
    const paths = await uploaded(await onlySet(await dirOf(tree)));
    assert.deepEqual(paths, ['B.txt', 'a-b.txt', 'a.txt', 'a/b.txt', 'b/a.txt', 'b/z.txt', 'one.sentinel', 'sentinel.hcl']);
  });
});

describe('a set folder too large is refused from its listing', () => {
  const dirOf = useTempTrees();

  it(`more than ${MAX_SET_FILES} files, named with their count`, async () => {
    const dir = await dirOf({ 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE });
    // One empty file, then hard links to it: each is a file of the folder, and costs the file system no inode of its own.
    const many = path.join(dir, 'policy-sets/s/many');
    mkdirSync(many);
    writeFileSync(path.join(many, 'f0'), '');
    for (let i = 1; i < MAX_SET_FILES - 1; i += 1) linkSync(path.join(many, 'f0'), path.join(many, `f${i}`));
    const problem = problemFor(await problemsOf(readDeclared(dir)), 'policy-sets/s');
    assert.equal(problem.message, `holds ${MAX_SET_FILES + 1} files; a policy set's folder may hold at most ${MAX_SET_FILES}. Leave files out with .syncignore`);
  });

  it('a tar estimated over the cap, before any file is read: 512 bytes a file plus its size rounded up to 512', async () => {
    const dir = await dirOf({ 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE, 'policy-sets/s/big.bin': '' });
    // Two blocks end the archive; sentinel.hcl (one block of data) and one.sentinel (one block) take two each.
    const room = MAX_SET_TAR_BYTES - 2 * 512 - 2 * 1024 - 512;
    await truncate(path.join(dir, 'policy-sets/s/big.bin'), room);
    assert.equal((await onlySet(dir)).content?.files.length, 3);
    await truncate(path.join(dir, 'policy-sets/s/big.bin'), room + 1);
    const problem = problemFor(await problemsOf(readDeclared(dir)), 'policy-sets/s');
    assert.equal(problem.message, `would pack to a ${MAX_SET_TAR_BYTES + 512}-byte tar (512 bytes a file plus its size rounded up to 512); a policy set's may be at most ${MAX_SET_TAR_BYTES} bytes (32 MiB). Leave files out with .syncignore`);
  });
});

describe('a set\'s content digest', () => {
  const dirOf = useTempTrees();

  it('is the same for a checkout with CRLF line ends, while the archive keeps the bytes as they are', async () => {
    const lf = await onlySet(await dirOf({ 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE, 'policy-sets/s/logo.bin': Buffer.from([0xff, 0x0d, 0x0a]) }));
    const crlfTree = { 'policy-sets/s/sentinel.hcl': CONFIG.replaceAll('\n', '\r\n'), 'policy-sets/s/one.sentinel': NATIVE.replaceAll('\n', '\r\n'), 'policy-sets/s/logo.bin': Buffer.from([0xff, 0x0d, 0x0a]) };
    const crlf = await onlySet(await dirOf(crlfTree));
    assert.equal(crlf.content?.digest, lf.content?.digest);
    const entries = readTarGz(await setArchiveBody(crlf.content!));
    assert.equal(entries.find((e) => e.path === 'one.sentinel')?.data.toString('utf8'), NATIVE.replaceAll('\n', '\r\n'));
    const binary = await onlySet(await dirOf({ ...crlfTree, 'policy-sets/s/logo.bin': Buffer.from([0xff, 0x0a]) }));
    assert.notEqual(binary.content?.digest, lf.content?.digest, 'a file that is not UTF-8 text is digested as its bytes');
    assert.equal(gunzipSync(await setArchiveBody(lf.content!)).length % 512, 0);
  });
});

describe('packSet', () => {
  const dirOf = useTempTrees();

  /** The files of `dir`'s folder `policy-sets/s`, as the packer takes them, in the order given. */
  async function filesOf(dir: string, names: string[]): Promise<{ files: ArchiveFile[]; place: PackPlace }> {
    const realRoot = realpathSync(dir);
    const folder = 'policy-sets/s';
    const files = names.map((name) => {
      const abs = path.join(dir, folder, name);
      return { path: name, rel: `${folder}/${name}`, abs, real: realpathSync(abs), size: statSync(abs).size };
    });
    return { files, place: { realRoot, realFolder: path.join(realRoot, folder), folder, maxGzipBytes: 1024 * 1024 } };
  }

  it('sorts the entries by path whatever order it is given them in, and the same files give the same bytes', async () => {
    const dir = await dirOf({ 'policy-sets/s/b.txt': 'b\n', 'policy-sets/s/a/z.txt': 'z\n', 'policy-sets/s/A.txt': 'A\n' });
    const { files, place } = await filesOf(dir, ['b.txt', 'a/z.txt', 'A.txt']);
    const packed = await packSet(files, place);
    assert.ok('archive' in packed, JSON.stringify(packed));
    assert.deepEqual(readTarGz(packed.archive.gzip).map((e) => e.path), ['A.txt', 'a/z.txt', 'b.txt']);
    const again = await packSet([...files].reverse(), place);
    assert.ok('archive' in again && again.archive.gzip.equals(packed.archive.gzip));
  });

  it('stops past the most gzip it may keep, naming the folder', async () => {
    const dir = await dirOf({ 'policy-sets/s/noise.bin': randomBytes(8192) });
    const { files, place } = await filesOf(dir, ['noise.bin']);
    const packed = await packSet(files, { ...place, maxGzipBytes: 4096 });
    assert.ok('problems' in packed, 'refused');
    assert.equal(packed.problems.length, 1);
    assert.equal(packed.problems[0]?.file, 'policy-sets/s');
    assert.match(packed.problems[0]?.message ?? '', /^packs to more than 4096 bytes \(\d+ so far\); a policy set's archive may be at most 4096 bytes$/);
  });

  it('refuses, at the upload, a file of the plan that has become a link out of the folder, even with the same bytes', async () => {
    const dir = await dirOf({ 'lib/one.sentinel': NATIVE, 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE });
    const set = await onlySet(dir);
    rmSync(path.join(dir, 'policy-sets/s/one.sentinel'));
    symlinkSync('../../lib/one.sentinel', path.join(dir, 'policy-sets/s/one.sentinel'));
    await assert.rejects(setArchiveBody(set.content!), {
      message: 'policy set folder policy-sets/s cannot be packed again: policy-sets/s/one.sentinel resolves outside the policy set\'s folder policy-sets/s; nothing was uploaded. Plan again',
    });
  });
});
