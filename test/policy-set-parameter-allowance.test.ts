/**
 * What a policy set's sensitive parameters may read is the operator's to allow, never the repo's: `--parameter-env`,
 * `--parameter-files` and `parameters:` in the config. Nothing is allowed by default; the tool's own secrets, /proc,
 * /sys, /dev and the service account's folder never are; a file is read only inside the allowed folder, by its real
 * path, as a regular file within its cap. A refusal names the file, the line and the flag, never a path of the host.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { link, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ParameterAllowance } from '../src/config/types.js';
import { readDeclared } from '../src/declared/index.js';
import { ValidationError } from '../src/errors.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const VALUE = 'allowed-Secret-value-5d19';

/** The problems of reading a repo whose set `p` takes `reference` as its parameter `key`, under `allowance`. */
async function problemsOf(repo: string, reference: string, allowance: Partial<ParameterAllowance>, env: Record<string, string> = {}): Promise<string[]> {
  await writeFile(path.join(repo, 'policy-sets/p.yaml'), `description: p\nparameters:\n  key: ${reference}\n`);
  const parameters = { env: [], files: null, reserved: { env: [], files: [] }, ...allowance };
  try {
    await readDeclared(repo, { env, parameters });
    return [];
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    return error.problems.map((p) => `${p.file}:${p.line ?? ''}: ${p.message}`);
  }
}

describe('what a parameter may read', () => {
  const fixture = useWorld();

  it('nothing by default: a reference the operator has not allowed is a problem before any request, naming file, line and flag', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policy-sets/p.yaml': 'description: p\nparameters:\n  plain: 1\n  key: { env: PPS_ALLOWED_KEY }\n  cert: { file: cert.pem }\n' });
    await world.clearRequests();
    const run = await world.cli('--dry-run', dir, [], 'warn', { PPS_ALLOWED_KEY: VALUE });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /policy-sets\/p\.yaml:4: parameters\.key: \{env: PPS_ALLOWED_KEY\} is not allowed: the operator allows what a parameter may read \(--parameter-env PPS_ALLOWED_KEY, or parameters\.env in the config\)/);
    assert.match(run.stdout, /policy-sets\/p\.yaml:5: parameters\.cert: its file is not allowed: no folder is allowed: the operator allows one \(--parameter-files DIR, or parameters\.files in the config\)/);
    assert.deepEqual(await world.requests(), []);
    assert.ok(!(run.stdout + run.stderr).includes(VALUE));
  });

  it('--parameter-env: a name allows that name only; a prefix ending in * allows what starts with it', async () => {
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    const env = { PPS_EXACT: VALUE, PPS_EXACTLY: VALUE, PPS_P_KEY: VALUE, PPS_Q_KEY: VALUE };
    assert.deepEqual(await problemsOf(repo, '{ env: PPS_EXACT }', { env: ['PPS_EXACT'] }, env), []);
    assert.match((await problemsOf(repo, '{ env: PPS_EXACTLY }', { env: ['PPS_EXACT'] }, env))[0] ?? '', /:3: parameters\.key: \{env: PPS_EXACTLY\} is not allowed/);
    assert.match((await problemsOf(repo, '{ env: PPS_EXAC }', { env: ['PPS_EXACT'] }, env))[0] ?? '', /is not allowed/);
    assert.deepEqual(await problemsOf(repo, '{ env: PPS_P_KEY }', { env: ['PPS_P_*'] }, env), []);
    assert.match((await problemsOf(repo, '{ env: PPS_Q_KEY }', { env: ['PPS_P_*'] }, env))[0] ?? '', /is not allowed/);
  });

  it('--parameter-env refuses a lone * and what is not a name', async () => {
    const dir = await fixture.repo({});
    for (const [pattern, said] of [['*', /"\*" would let the repo read every variable/], ['A*B', /"A\*B" is not a variable name/]] as const) {
      const run = await fixture.world.cli('--dry-run', dir, ['--parameter-env', pattern]);
      assert.equal(run.code, 1);
      assert.match(run.stderr, said);
    }
  });

  it("never the tool's own variables, whatever the patterns allow", async () => {
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    const everything = { env: ['A*', 'C*', 'G*', 'H*', 'L*', 'S*', 'W*', 'P*'] };
    const env = { API_TOKEN: VALUE, CONTROL_TOKEN: VALUE, STATUS_TOKEN: VALUE, WEBHOOK_SECRET: VALUE, GITHUB_TOKEN: VALUE, HTTPS_PROXY: VALUE, GIT_CONFIG_VALUE_0: VALUE, LEADER_ELECTION_ENDPOINTS: VALUE, API_BASE_URL: VALUE, PPS_FINE: VALUE };
    for (const name of ['API_TOKEN', 'CONTROL_TOKEN', 'STATUS_TOKEN', 'WEBHOOK_SECRET', 'GITHUB_TOKEN', 'HTTPS_PROXY', 'GIT_CONFIG_VALUE_0', 'LEADER_ELECTION_ENDPOINTS', 'API_BASE_URL']) {
      const problems = await problemsOf(repo, `{ env: ${name} }`, everything, env);
      assert.match(problems[0] ?? '', new RegExp(`\\{env: ${name}\\} names a secret this tool reads for itself`), name);
    }
    assert.deepEqual(await problemsOf(repo, '{ env: PPS_FINE }', everything, env), []);
  });

  it('never /proc, /sys, /dev or the service account folder, whatever folder is allowed', async () => {
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    const references = ['/proc/self/environ', '/sys/kernel/address_bits', '/dev/zero', '/var/run/secrets/kubernetes.io/serviceaccount/token', '../proc/self/environ'];
    for (const reference of references) {
      const problems = await problemsOf(repo, `{ file: "${reference}" }`, { files: '/' });
      assert.match(problems[0] ?? '', /parameters\.key: its file is one this tool never lets a parameter read/, reference);
      assert.ok(!problems[0]!.includes(reference), 'the problem never names the path');
    }
  });

  it("never the files the config names for the tool's own use: the token file, a notification's URL file", async () => {
    const { world } = fixture;
    const secrets = await fixture.repo({ 'token.txt': `${world.token}\n`, 'hook.txt': 'https://hooks.example.com/services/T0/B0/x\n', 'fine.txt': VALUE });
    const dir = await fixture.repo({ 'policy-sets/p.yaml': 'parameters:\n  a: { file: token.txt }\n  b: { file: hook.txt }\n  c: { file: fine.txt }\n  d: { env: PPS_HOOK_SECRET }\n' });
    const config = path.join(secrets, 'config.yaml');
    await writeFile(config, [
      `api: { url: "${world.url}", token-file: ${path.join(secrets, 'token.txt')} }`,
      `parameters: { env: [PPS_*], files: ${secrets} }`,
      `sources: [{ name: s, organization: ${ORG}, path: ${dir} }]`,
      'notifications: [{ name: n, type: webhook, url-file: hook.txt, secret-env: PPS_HOOK_SECRET }]',
    ].join('\n'));
    const run = await runCli(['--validate', '--config', config], { env: { PPS_HOOK_SECRET: VALUE }, cwd: secrets });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const said = run.stdout + run.stderr;
    assert.match(said, /parameters\.a: its file is one this tool never lets a parameter read/);
    assert.match(said, /parameters\.b: its file is one this tool never lets a parameter read/);
    assert.match(said, /parameters\.d: \{env: PPS_HOOK_SECRET\} names a secret this tool reads for itself/);
    assert.doesNotMatch(said, /parameters\.c:/);
  });

  it('a file only inside the allowed folder, by where it leads: relative or absolute inside; a link out, a path out, the repo refused', async () => {
    const outside = await fixture.repo({ 'secret.txt': 'outside\n' });
    const allowed = await fixture.repo({ 'key.txt': `${VALUE}\n`, 'sub/inner.txt': VALUE, 'link-in': { symlink: 'key.txt' }, 'link-out': { symlink: path.join(outside, 'secret.txt') } });
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    const files = { files: allowed };
    for (const reference of ['key.txt', path.join(allowed, 'key.txt'), 'sub/inner.txt', 'link-in']) assert.deepEqual(await problemsOf(repo, `{ file: "${reference}" }`, files), [], reference);
    assert.match((await problemsOf(repo, '{ file: link-out }', files))[0] ?? '', /its file leads out of the folder the operator allows \(--parameter-files\), through a link/);
    assert.match((await problemsOf(repo, `{ file: "${path.join(outside, 'secret.txt')}" }`, files))[0] ?? '', /its file is outside the folder the operator allows/);
    assert.match((await problemsOf(repo, '{ file: ../secret.txt }', files))[0] ?? '', /its file is outside the folder the operator allows/);
    assert.match((await problemsOf(repo, '{ file: nothing.txt }', files))[0] ?? '', /its file cannot be read: no such file in the folder the operator allows/);
    const linkedRepo = await fixture.repo({ 'policy-sets/.keep': '', 'in-git.txt': VALUE });
    assert.match((await problemsOf(linkedRepo, '{ file: in-git.txt }', { files: linkedRepo }))[0] ?? '', /its file is inside the repo/);
  });

  it('a Kubernetes Secret volume is read: each key a link through ..data to the folder of the last update; `..` itself is outside', async () => {
    const stamp = '..2026_12_01_10_00_00.123456789';
    const allowed = await fixture.repo({ [`${stamp}/api-key`]: `${VALUE}\n`, '..data': { symlink: stamp }, 'api-key': { symlink: '..data/api-key' } });
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    const files = { files: allowed };
    assert.deepEqual(await problemsOf(repo, '{ file: api-key }', files), []);
    assert.deepEqual(await problemsOf(repo, '{ file: ..data/api-key }', files), []);
    assert.match((await problemsOf(repo, '{ file: .. }', files))[0] ?? '', /its file is outside the folder the operator allows/);
    assert.match((await problemsOf(repo, '{ file: ../x }', files))[0] ?? '', /its file is outside the folder the operator allows/);
  });

  it('a hard link is refused: to a file the tool never lets a parameter read (matched by device and inode), or to any other', async () => {
    const reservedDir = await fixture.repo({ 'token.txt': 'tok-Reserved-Token-1234\n', 'elsewhere.txt': 'elsewhere\n' });
    const allowed = await fixture.repo({ 'fine.txt': VALUE });
    await link(path.join(reservedDir, 'token.txt'), path.join(allowed, 'token-copy.txt'));
    await link(path.join(reservedDir, 'elsewhere.txt'), path.join(allowed, 'other-copy.txt'));
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    const allowance = { files: allowed, reserved: { env: [], files: [path.join(reservedDir, 'token.txt')] } };
    assert.match((await problemsOf(repo, '{ file: token-copy.txt }', allowance))[0] ?? '', /its file is, through a hard link, a file this tool never lets a parameter read/);
    assert.match((await problemsOf(repo, '{ file: other-copy.txt }', allowance))[0] ?? '', /its file has 2 links \(a hard link\); a sensitive value is read only from a file with one/);
    assert.deepEqual(await problemsOf(repo, '{ file: fine.txt }', allowance), []);
  });

  it('a loop of links, and a name no variable or file can have, are said as what they are', async () => {
    const allowed = await fixture.repo({ a: { symlink: 'b' }, b: { symlink: 'a' } });
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    assert.match((await problemsOf(repo, '{ file: a }', { files: allowed }))[0] ?? '', /its file cannot be read: its links lead round in a loop \(ELOOP\), or through too many links/);
    const allowance = { env: ['PPS_*'], files: allowed };
    assert.match((await problemsOf(repo, '{ env: "PPS_\\0X" }', allowance))[0] ?? '', /:3: parameters\.key: \{env: "PPS_\\u0000X"\} is not an environment variable's name: a NUL character at character 5; a name is letters, digits and _, and does not start with a digit/);
    assert.match((await problemsOf(repo, '{ env: "PPS X" }', allowance))[0] ?? '', /\{env: "PPS X"\} is not an environment variable's name: a space at character 4/);
    assert.match((await problemsOf(repo, '{ env: "1PPS" }', allowance))[0] ?? '', /\{env: "1PPS"\} is not an environment variable's name: the digit 1 at character 1/);
    assert.match((await problemsOf(repo, '{ file: "a\\0b" }', allowance))[0] ?? '', /its file names a path holding a NUL character, which no file's path can hold/);
  });

  it('regular files only, read to at most 64 KiB: a FIFO never blocks, a folder and a larger file are refused', async () => {
    const allowed = await fixture.repo({ 'big.txt': 'x'.repeat(65_537), 'folder/x': '', 'max.txt': 'y'.repeat(65_536) });
    execFileSync('mkfifo', [path.join(allowed, 'fifo')]);
    const repo = await fixture.repo({ 'policy-sets/.keep': '' });
    const files = { files: allowed };
    assert.match((await problemsOf(repo, '{ file: fifo }', files))[0] ?? '', /its file is not a regular file; a sensitive value is read only from one/);
    assert.match((await problemsOf(repo, '{ file: folder }', files))[0] ?? '', /its file is not a regular file/);
    assert.match((await problemsOf(repo, '{ file: big.txt }', files))[0] ?? '', /its file holds more than 65536 bytes/);
    assert.deepEqual(await problemsOf(repo, '{ file: max.txt }', files), []);
  });

  it('config: parameters for every source, a source\'s own in place of them, and the flags added for a run', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policy-sets/p.yaml': 'parameters:\n  a: { env: PPS_TOP }\n  b: { env: PPS_FLAG }\n' });
    const config = path.join(await fixture.repo({}), 'config.yaml');
    const write = (own: string) => writeFile(config, [`api: { url: "${world.url}" }`, 'parameters: { env: [PPS_TOP] }', `sources: [{ name: s, organization: ${ORG}, path: ${dir}${own} }]`].join('\n'));
    const validate = (extra: string[] = []) => runCli(['--validate', '--config', config, ...extra], { env: { PPS_TOP: VALUE, PPS_FLAG: VALUE } });
    await write('');
    const top = await validate();
    assert.match(top.stdout + top.stderr, /parameters\.b: \{env: PPS_FLAG\} is not allowed/);
    assert.doesNotMatch(top.stdout + top.stderr, /parameters\.a:/);
    assert.equal((await validate(['--parameter-env', 'PPS_FLAG'])).code, 0);
    await write(', parameters: { env: [PPS_FLAG] }');
    const own = await validate();
    assert.match(own.stdout + own.stderr, /parameters\.a: \{env: PPS_TOP\} is not allowed/);
    assert.doesNotMatch(own.stdout + own.stderr, /parameters\.b:/);
  });

  it('a value the repo chooses never blanks the plan a reviewer reads', async () => {
    const { world } = fixture;
    const first = await world.cli('--reconcile', await fixture.repo({ 'policies/legacy-guard.native': 'main = rule { true }\n' }), ['--source', 'blank-test']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    // The pull request's branch is named after what it deletes, and a parameter reads the branch's name.
    const dir = await fixture.repo({ 'policies/kept.native': 'main = rule { true }\n', 'policy-sets/p.yaml': 'parameters:\n  branch: { env: PPS_HEAD_REF }\n' });
    const plan = await world.cli('--dry-run', dir, ['--source', 'blank-test', '--prune', '--parameter-env', 'PPS_HEAD_REF'], 'warn', { PPS_HEAD_REF: 'legacy-guard' });
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /# policy "legacy-guard" will be destroyed \(not declared, prune is on\)/);
    assert.doesNotMatch(plan.stdout, /\*\*\*/);
  });
});
