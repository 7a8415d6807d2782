/**
 * The guards of a versioned set's files by their real paths: a set beside another whose name begins with its own,
 * exactly the file cap packed, a file that changed size between the listing and the packing (or shrank as it was
 * packed) refused, the upload's proof that the folder is what the plan showed, and an archive whose bytes do not
 * depend on the time or the user that packed it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, linkSync, mkdirSync, realpathSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { MAX_SET_FILES, readDeclared, setArchiveBody, type DeclaredPolicySet } from '../src/declared/index.js';
import { packSet, type ArchiveFile, type PackPlace } from '../src/declared/policy-set-archive.js';
import { readTarGz } from '../src/emulator/tar.js';
import { useTempTrees } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';
const CONFIG = 'policy "one" {\n  source = "./one.sentinel"\n  enforcement_level = "advisory"\n}\n';

/** The sets of a repo that reads without a problem (readDeclared throws one). */
async function setsOf(dir: string): Promise<DeclaredPolicySet[]> {
  return (await readDeclared(dir)).policySets ?? [];
}

/** The files of `dir`'s folder `policy-sets/s`, as the packer takes them, each with the size it has now. */
function filesOf(dir: string, names: string[]): { files: ArchiveFile[]; place: PackPlace } {
  const realRoot = realpathSync(dir);
  const folder = 'policy-sets/s';
  const files = names.map((name) => {
    const abs = path.join(dir, folder, name);
    return { path: name, rel: `${folder}/${name}`, abs, real: realpathSync(abs), size: statSync(abs).size };
  });
  return { files, place: { realRoot, realFolder: path.join(realRoot, folder), folder, maxGzipBytes: 20 * 1024 * 1024 } };
}

/** A tar header's field: text up to its first NUL. */
const field = (header: Buffer, offset: number, length: number) => header.subarray(offset, offset + length).toString('latin1').replace(/\0.*$/s, '');

describe('a versioned set\'s files, by their real paths', () => {
  const dirOf = useTempTrees();

  it('a set "a" beside a set "ab" holds only its own files, and "ab" only its own', async () => {
    const dir = await dirOf({
      'policy-sets/a/sentinel.hcl': CONFIG, 'policy-sets/a/one.sentinel': NATIVE,
      'policy-sets/ab/sentinel.hcl': CONFIG, 'policy-sets/ab/one.sentinel': NATIVE, 'policy-sets/ab/only-ab.txt': 'ab\n',
    });
    const sets = await setsOf(dir);
    assert.deepEqual(sets.map((s) => [s.name, s.content?.files.map((f) => f.path)]), [
      ['a', ['one.sentinel', 'sentinel.hcl']],
      ['ab', ['one.sentinel', 'only-ab.txt', 'sentinel.hcl']],
    ]);
    assert.deepEqual(readTarGz(await setArchiveBody(sets[0]!.content!)).map((e) => e.path), ['one.sentinel', 'sentinel.hcl']);
  });

  it(`exactly ${MAX_SET_FILES} files pack`, async () => {
    const dir = await dirOf({ 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE });
    // One empty file, then hard links to it: each is a file of the folder, and costs the file system no inode of its own.
    const many = path.join(dir, 'policy-sets/s/many');
    mkdirSync(many);
    writeFileSync(path.join(many, 'f0'), '');
    for (let i = 1; i < MAX_SET_FILES - 2; i += 1) linkSync(path.join(many, 'f0'), path.join(many, `f${i}`));
    const [set] = await setsOf(dir);
    assert.equal(set?.content?.files.length, MAX_SET_FILES);
  });

  it('a file whose size changed between the listing and the packing is refused, naming it', async () => {
    const dir = await dirOf({ 'policy-sets/s/one.sentinel': NATIVE, 'policy-sets/s/two.sentinel': NATIVE });
    const { files, place } = filesOf(dir, ['one.sentinel', 'two.sentinel']);
    appendFileSync(path.join(dir, 'policy-sets/s/two.sentinel'), '# one more line\n');
    assert.deepEqual(await packSet(files, place), { problems: [{ file: 'policy-sets/s/two.sentinel', message: 'changed while it was packed; plan again' }] });
  });

  it('a file that shrinks while it is packed is refused, naming it', async () => {
    const dir = await dirOf({ 'policy-sets/s/big.bin': randomBytes(2 * 1024 * 1024) });
    const { files, place } = filesOf(dir, ['big.bin']);
    // Resumed from a file system callback, so that the immediate below runs in this turn's check phase: once the packer
    // has opened the file, read its first chunks and waits for gzip (a thread of the pool) to take them, long before
    // 2 MiB of random bytes are compressed.
    await stat(dir);
    const packing = packSet(files, place);
    setImmediate(() => truncateSync(path.join(dir, 'policy-sets/s/big.bin'), 0));
    assert.deepEqual(await packing, { problems: [{ file: 'policy-sets/s/big.bin', message: 'changed while it was packed; plan again' }] });
  });

  it('the upload refuses a folder whose file was edited since the plan, its size the same', async () => {
    const dir = await dirOf({ 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE });
    const [set] = await setsOf(dir);
    const edited = 'main = rule { false}\n';
    assert.equal(edited.length, NATIVE.length);
    writeFileSync(path.join(dir, 'policy-sets/s/one.sentinel'), edited);
    await assert.rejects(setArchiveBody(set!.content!), { message: 'policy set folder policy-sets/s changed since the plan was made; nothing was uploaded. Plan again' });
    writeFileSync(path.join(dir, 'policy-sets/s/one.sentinel'), NATIVE);
    assert.ok((await setArchiveBody(set!.content!)).length > 0, 'the folder as the plan showed it is uploaded');
  });

  it('the archive\'s bytes do not depend on the time or on who packs: a fixed time, owner 0 with no names, mode 0644, gzip with no time and OS Unix', async () => {
    const dir = await dirOf({ 'policy-sets/s/sentinel.hcl': CONFIG, 'policy-sets/s/one.sentinel': NATIVE });
    const [set] = await setsOf(dir);
    const gzip = await setArchiveBody(set!.content!);
    assert.equal(gzip.readUInt32LE(4), 0, 'gzip MTIME');
    assert.equal(gzip[9], 3, 'gzip OS: Unix');
    const tar = gunzipSync(gzip);
    for (const entry of readTarGz(gzip)) {
      const header = tar.subarray(tar.indexOf(Buffer.from(`${entry.path}\0`, 'latin1')));
      assert.equal(parseInt(field(header, 136, 12), 8), Date.UTC(2000, 0, 1) / 1000, `${entry.path}: mtime`);
      assert.equal(parseInt(field(header, 100, 8), 8), 0o644, `${entry.path}: mode`);
      assert.deepEqual([parseInt(field(header, 108, 8), 8), parseInt(field(header, 116, 8), 8)], [0, 0], `${entry.path}: uid and gid`);
      assert.deepEqual([field(header, 265, 32), field(header, 297, 32)], ['', ''], `${entry.path}: user and group names`);
    }
  });
});

