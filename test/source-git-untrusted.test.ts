import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { ValidationError } from '../src/errors.js';
import { openSource } from '../src/source/index.js';
import type { SourceConfig } from '../src/config/types.js';
import { gitHttpServer } from './helpers/git-http-server.js';
import { gitRepo } from './helpers/git-repo.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';

const run = promisify(execFile);
const NATIVE = 'main = rule { true }\n';

function gitSourceConfig(url: string, gitPath = '.'): SourceConfig {
  return {
    name: 'attacker', organization: 'acme', path: null, git: { url, ref: 'main', path: gitPath }, schedule: '* * * * *', prune: true,
    ownership: 'marker', maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 60,
  };
}

async function checkoutError(config: SourceConfig, stateDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Error> {
  const logs = captureLogs();
  const source = openSource(config, { stateDir, env, logger: logs.logger });
  const error = await source.checkout().then(() => null, (e: unknown) => e as Error);
  assert.ok(error !== null, 'the checkout is refused');
  return error;
}

describe('a git source is checked before its files are read', () => {
  it('git.path through a symbolic link to another source\'s checkout is refused, naming git.path', async (t) => {
    const stateDir = await tempTree(t, { 'git/victim/policies/secret.native': NATIVE });
    const repo = await gitRepo(t);
    await repo.commit({ 'decl': { symlink: '../victim' }, 'README.md': 'x' });
    const error = await checkoutError(gitSourceConfig(repo.dir, 'decl'), stateDir);
    assert.ok(error instanceof ValidationError, String(error));
    assert.deepEqual(error.problems.map((p) => p.file), ['decl']);
    assert.match(error.message, /git\.path "decl" resolves outside the repository's checkout/);
  });

  it('a submodule in the declared tree is an error naming it, unless the read leaves it out (submodules are not fetched, what they declare would be pruned)', async (t) => {
    const stateDir = await tempTree(t);
    const repo = await gitRepo(t);
    const head = await repo.commit({ 'declared/policies/a.native': NATIVE, 'declared/.syncignore': 'docs/\n', 'vendor/keep': 'x' });
    const gitlinks = ['declared/policies/shared', 'declared/policy-sets/fsbp', 'declared/libraries/fsbp', 'declared/docs/theme', 'declared/.github/actions', 'vendor/lib'];
    await run('git', ['update-index', '--add', ...gitlinks.flatMap((gitlink) => ['--cacheinfo', `160000,${head},${gitlink}`])], { cwd: repo.dir });
    await run('git', ['commit', '--quiet', '-m', 'submodules'], { cwd: repo.dir });
    const error = await checkoutError(gitSourceConfig(repo.dir, 'declared'), stateDir);
    assert.ok(error instanceof ValidationError, String(error));
    // Outside git.path, in a dot-folder, or left out by .syncignore: never read, so nothing of it can be pruned.
    assert.deepEqual(error.problems.map((p) => p.file).sort(), ['libraries/fsbp', 'policies/shared', 'policy-sets/fsbp']);
    assert.match(error.message, /policies\/shared: is a git submodule; submodules are not fetched/);
    assert.match(error.message, /libraries\/fsbp: is a git submodule; submodules are not fetched, so a policy set in it would be missing \(and pruned\): move its files into the repo, or leave it out in \.syncignore/);
  });
});

describe('git credentials never reach the disk, a command line or a message', () => {
  /** A `git` first on PATH that records its arguments, then runs the real one. */
  async function argvRecorder(t: TestContext): Promise<{ env: NodeJS.ProcessEnv; argv: () => Promise<string> }> {
    const bin = await tempTree(t);
    const log = path.join(bin, 'argv.log');
    const real = (await run('sh', ['-c', 'command -v git'])).stdout.trim();
    await writeFile(path.join(bin, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`);
    await chmod(path.join(bin, 'git'), 0o755);
    await writeFile(log, '');
    return { env: { ...process.env, PATH: `${bin}:${process.env['PATH'] ?? ''}` }, argv: () => readFile(log, 'utf8') };
  }

  it('a password (with an unencoded @) is answered by a credential helper from the environment, never in argv or .git/config', async (t) => {
    const repo = await gitRepo(t);
    const head = await repo.commit({ 'policies/a.native': NATIVE });
    const server = await gitHttpServer(t, { root: path.dirname(repo.dir), credentials: 'deploy:s3cr@t-pw' });
    const recorder = await argvRecorder(t);
    const stateDir = await tempTree(t);
    const url = `${server.origin.replace('//', '//deploy:s3cr@t-pw@')}/${path.basename(repo.dir)}`;
    const logs = captureLogs();
    const checkout = await openSource(gitSourceConfig(url), { stateDir, env: recorder.env, logger: logs.logger }).checkout();
    assert.equal(checkout.revision, head);
    const basic = `Basic ${Buffer.from('deploy:s3cr@t-pw').toString('base64')}`;
    assert.ok(server.seen.some((r) => r.authorization === basic), JSON.stringify(server.seen));
    const argv = await recorder.argv();
    assert.ok(argv.includes('fetch'), argv);
    const config = await readFile(path.join(stateDir, 'git/attacker/.git/config'), 'utf8');
    for (const [where, text] of [['argv', argv], ['.git/config', config], ['the logs', logs.text()]] as const) {
      assert.ok(!text.includes('s3cr') && !text.includes('t-pw') && !text.includes('deploy'), `${where}: ${text}`);
    }
  });

  it('git credentials never follow a redirect to another origin (another port of the same host)', async (t) => {
    const repo = await gitRepo(t);
    await repo.commit({ 'policies/a.native': NATIVE });
    const elsewhere = await gitHttpServer(t, { root: path.dirname(repo.dir), credentials: 'deploy:s3cr@t-pw' });
    const redirecting = await gitHttpServer(t, { redirectTo: elsewhere.origin });
    const stateDir = await tempTree(t);
    const url = `${redirecting.origin.replace('//', '//deploy:s3cr@t-pw@')}/${path.basename(repo.dir)}`;
    const error = await checkoutError(gitSourceConfig(url), stateDir);
    assert.ok(redirecting.seen.length > 0 && elsewhere.seen.length > 0, 'git followed the redirect');
    assert.deepEqual(elsewhere.seen.map((r) => r.authorization), elsewhere.seen.map(() => undefined), 'no Authorization reached the other origin');
    assert.ok(!error.message.includes('s3cr') && !error.message.includes('t-pw'), error.message);
    assert.match(error.message, /git fetch of http:\/\/\*\*\*@127\.0\.0\.1:\d+\//);
  });

  it('a token in the query string is hidden in the error', async (t) => {
    const stateDir = await tempTree(t);
    const error = await checkoutError(gitSourceConfig('https://127.0.0.1:1/acme/policies.git?private_token=glpat-0123456789'), stateDir);
    assert.ok(!error.message.includes('glpat-0123456789'), error.message);
    assert.match(error.message, /policies\.git\?private_token=\*\*\*/);
  });
});
