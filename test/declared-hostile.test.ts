import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { problemFor, problemsOf } from './helpers/declared-problems.js';
import { useTempTrees } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';

describe('a hostile or broken declared repo is refused with problems, never a hang or a raw error', () => {
  const dirOf = useTempTrees();

  it('a symbolic-link diamond (each folder linking twice to the next) is read in linear time, each folder once', { timeout: 20_000 }, async () => {
    const levels = 24;
    const files: Record<string, { symlink: string } | string> = { [`policies/l${levels}/leaf.native`]: NATIVE };
    for (let level = 0; level < levels; level += 1) {
      files[`policies/l${level}/a`] = { symlink: `../l${level + 1}` };
      files[`policies/l${level}/b`] = { symlink: `../l${level + 1}` };
    }
    const problems = await problemsOf(readDeclared(await dirOf(files)));
    // Every link reaches a folder that the walk reads once, under its real name or the first link to it.
    assert.ok(problems.length >= levels && problems.length <= 2 * levels + 1, `${problems.length} problems`);
    assert.ok(problems.every((p) => /already read as policies\//.test(p.message)), JSON.stringify(problems.slice(0, 3)));
  });

  it('stops with a clear error past the folder and entry caps', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i += 1) files[`policies/f${i}/p${i}.native`] = NATIVE;
    const dir = await dirOf(files);
    const folders = await problemsOf(readDeclared(dir, { limits: { maxDirectories: 5, maxEntries: 1_000 } }));
    assert.deepEqual(folders.map((p) => p.file), ['.']);
    assert.match(folders[0]?.message ?? '', /more than 5 folders under policies\/ and agent-pools\/; nothing was read/);
    const entries = await problemsOf(readDeclared(dir, { limits: { maxDirectories: 100, maxEntries: 10 } }));
    assert.match(entries[0]?.message ?? '', /more than 10 files and folders/);
    assert.equal((await readDeclared(dir)).policies.length, 12);
  });

  it('a .syncignore linked outside the repo is refused, not applied', async () => {
    const outside = await dirOf({ 'ignore-all': 'policies/\n' });
    const dir = await dirOf({ 'policies/p.native': NATIVE, '.syncignore': { symlink: path.join(outside, 'ignore-all') } });
    const problems = await problemsOf(readDeclared(dir));
    assert.match(problemFor(problems, '.syncignore').message, /resolves outside the source root/);
  });

  it('a .syncignore that is a folder, a device, a FIFO or over 1 MiB is a problem naming it', { timeout: 10_000 }, async () => {
    const folder = await dirOf({ 'policies/p.native': NATIVE, '.syncignore/x': 'y' });
    assert.match(problemFor(await problemsOf(readDeclared(folder)), '.syncignore').message, /is a folder; it must be a file/);

    const device = await dirOf({ 'policies/p.native': NATIVE, '.syncignore': { symlink: '/dev/zero' } });
    assert.match(problemFor(await problemsOf(readDeclared(device)), '.syncignore').message, /outside the source root/);

    const fifo = await dirOf({ 'policies/p.native': NATIVE });
    execFileSync('mkfifo', [path.join(fifo, '.syncignore')]);
    assert.match(problemFor(await problemsOf(readDeclared(fifo)), '.syncignore').message, /not a regular file/);

    const big = await dirOf({ 'policies/p.native': NATIVE, '.syncignore': `${'#'.repeat(1_048_576)}\n` });
    assert.match(problemFor(await problemsOf(readDeclared(big)), '.syncignore').message, /is 1048577 bytes; it may be at most 1048576 bytes/);
  });

  it('a FIFO, socket or device named like a policy is refused without blocking on it', { timeout: 10_000 }, async () => {
    const dir = await dirOf({ 'policies/ok.native': NATIVE, 'agent-pools/.keep': '' });
    execFileSync('mkfifo', [path.join(dir, 'policies/pipe.native'), path.join(dir, 'policies/ok.yaml')]);
    await symlink('/dev/null', path.join(dir, 'policies/null.native'));
    const problems = await problemsOf(readDeclared(dir));
    assert.match(problemFor(problems, 'policies/pipe.native').message, /not a regular file \(a FIFO, socket or device\)/);
    assert.match(problemFor(problems, 'policies/ok.yaml').message, /not a regular file/);
    assert.match(problemFor(problems, 'policies/null.native').message, /outside the source root/);
  });

  it('a path longer than the system allows is a problem naming it, and the other problems are still found', async () => {
    // Each folder links to the next real one, so the path through the links grows past PATH_MAX while no real path does.
    const segment = 'd'.repeat(200);
    const files: Record<string, { symlink: string } | string> = { 'policies/bad name.native': NATIVE, [`policies/${segment}`]: { symlink: '../r0' } };
    for (let i = 0; i < 24; i += 1) files[`r${i}/${segment}`] = { symlink: `../r${i + 1}` };
    files['r24/deep.native'] = NATIVE;
    const problems = await problemsOf(readDeclared(await dirOf(files)));
    assert.ok(problems.some((p) => p.file === 'policies/bad name.native'), JSON.stringify(problems));
    const long = problems.find((p) => /ENAMETOOLONG/.test(p.message));
    assert.ok(long !== undefined && long.file.startsWith(`policies/${segment}/${segment}/`), JSON.stringify(problems));
    assert.match(long.message, /longer than the system allows/);
  });

  it('a .yml settings or pool file is refused with a hint; an upper-case extension is warned about', async () => {
    const problems = await problemsOf(readDeclared(await dirOf({
      'policies/tags.native': NATIVE,
      'policies/tags.yml': 'enforcement-level: hard-mandatory\n',
      'agent-pools/build.yml': 'organization-scoped: false\n',
    })));
    assert.match(problemFor(problems, 'policies/tags.yml').message, /settings files end in \.yaml; rename it to tags\.yaml/);
    assert.match(problemFor(problems, 'agent-pools/build.yml').message, /agent pool files end in \.yaml; rename it to build\.yaml/);

    const read = await readDeclared(await dirOf({ 'policies/ok.native': NATIVE, 'policies/LOUD.NATIVE': NATIVE, 'policies/q.Rego': 'package q\n' }));
    assert.deepEqual(read.policies.map((p) => p.name), ['ok']);
    assert.deepEqual(read.warnings, [
      'policies/LOUD.NATIVE: is not read: only lower-case extensions are; rename it to LOUD.native to declare it',
      'policies/q.Rego: is not read: only lower-case extensions are; rename it to q.rego to declare it',
    ]);
  });

  it('an empty policy file is declared, with a warning', async () => {
    const read = await readDeclared(await dirOf({ 'policies/empty.native': '', 'policies/full.native': NATIVE }));
    assert.deepEqual(read.policies.map((p) => p.name), ['empty', 'full']);
    assert.deepEqual(read.warnings, ['policies/empty.native: is empty; the policy is declared with no code']);
  });

  it('reads hundreds of files holding one file descriptor at a time (no EMFILE under a low descriptor limit)', { timeout: 60_000 }, async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i += 1) {
      files[`policies/p${i}.native`] = NATIVE;
      files[`policies/p${i}.yaml`] = 'enforcement-level: advisory\n';
    }
    const dir = await dirOf(files);
    // Built (the test tiers run .test-build): the built module under plain node; as sources: the sources under tsx.
    const built = import.meta.url.endsWith('.js');
    const entry = fileURLToPath(new URL(`../src/declared/index.${built ? 'js' : 'ts'}`, import.meta.url));
    const script = `import { readDeclared } from ${JSON.stringify(pathToFileURL(entry).href)};
      const state = await readDeclared(${JSON.stringify(dir)});
      console.log(state.policies.length);`;
    await mkdir(path.join(dir, 'tmp'));
    const scriptFile = path.join(dir, 'tmp', built ? 'read.mjs' : 'read.mts');
    await writeFile(scriptFile, script);
    // The loader loads before the limit matters; the read then gets only a few spare descriptors.
    const run = spawnSync('sh', ['-c', `ulimit -n 48 && exec "${process.execPath}" ${built ? '' : '--import tsx '}"${scriptFile}"`], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout.trim(), '300');
  });
});
