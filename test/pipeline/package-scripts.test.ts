/**
 * The package as npm runs it: in a fresh clone with nothing installed, `npm start` and `npm run emulator` run the
 * committed bundle; a git checkout packs, and installs from the tarball (offline, one package) or the git URL, with no build.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../helpers/repo-root.js';

const run = promisify(execFile);
const dirs: string[] = [];
after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function temp(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A clone of the committed repository, with nothing installed: what a newcomer has after `git clone`. */
async function freshClone(): Promise<string> {
  const clone = join(await temp('pps-fresh-'), 'policy-pool-sync');
  await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
  return clone;
}

/** Starts `npm run SCRIPT` in `cwd`, in its own process group; `stop` ends it and whatever it started. */
function npmRun(cwd: string, script: string[], env: Record<string, string>) {
  const npm = spawn('npm', ['run', '--silent', ...script], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so that the test can remove whatever the run left behind if it fails.
    detached: true,
  });
  const output = { stdout: '', stderr: '' };
  npm.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  npm.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<unknown>((resolve) => npm.once('exit', resolve));
  const stop = () => {
    try {
      process.kill(-npm.pid!, 'SIGKILL');
    } catch {
      // The group is gone: everything stopped.
    }
  };
  return { npm, output, exited, stop };
}

describe('npm scripts in a fresh clone, with nothing installed', () => {
  it('start runs the committed bundle as it is (no build first): the daemon gets ready, and killing npm stops it', async (t) => {
    const scripts = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['prestart', 'preemulator', 'prepare']) assert.equal(scripts[name], undefined, `npm runs ${name} first, which needs what npm ci installs`);
    assert.match(scripts['start'] ?? '', /^exec node bundle\/policy-pool-sync\.mjs /, 'the shell npm starts the script in is replaced by node');

    const clone = await freshClone();
    assert.ok(!existsSync(join(clone, 'node_modules')));
    const started = Date.now();
    const { npm, output, exited, stop } = npmRun(clone, ['start'], { LISTEN_ADDRESS: '127.0.0.1:0', STATE_DIR: await temp('pps-start-'), LOG_LEVEL: 'info', LOG_FORMAT: 'json' });
    try {
      const origin = await until(`the daemon to listen (stderr so far: ${output.stderr.slice(0, 2000)})`, () => {
        const line = output.stderr.split('\n').find((l) => l.includes('"daemon listening"'));
        return line === undefined ? undefined : String((JSON.parse(line) as { listen: string }).listen);
      });
      await until('/readyz to answer 200', async () => ((await fetch(`${origin}/readyz`)).status === 200 ? true : undefined), 60_000);
      t.diagnostic(`npm start in a fresh clone: ready (/readyz 200) after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      assert.equal((await fetch(`${origin}/healthz`)).status, 200);
      npm.kill('SIGTERM');
      await exited;
      await until('the daemon to stop serving', async () => {
        try {
          await fetch(`${origin}/healthz`);
          return undefined;
        } catch {
          return true;
        }
      }, 30_000);
    } finally {
      stop();
    }
  });

  it('emulator serves the API emulator from the committed bundle', async () => {
    const clone = await freshClone();
    const { output, stop } = npmRun(clone, ['emulator', '--', '--port', '0'], {});
    try {
      const { url, token } = await until(`the emulator to print its URL (stderr so far: ${output.stderr.slice(0, 2000)})`, () => {
        const line = output.stdout.split('\n').find((l) => l.startsWith('{'));
        return line === undefined ? undefined : (JSON.parse(line) as { url: string; token: string });
      }, 60_000);
      assert.equal((await fetch(`${url}/ping`, { headers: { authorization: `Bearer ${token}` } })).status, 204);
    } finally {
      stop();
    }
  });
});

describe('installing from a git checkout', () => {
  const version = async () => `${(JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`;
  let clone: string;

  /** The command an install puts on the PATH works on its own: the version, and a validation (the schemas are inside). */
  async function works(prefix: string) {
    const bin = join(prefix, 'bin', 'policy-pool-sync');
    assert.equal((await run(bin, ['--version'])).stdout, await version());
    const validate = await run(bin, ['--validate', '--source-dir', join(REPO_ROOT, 'examples/declared')]);
    assert.match(validate.stdout, /^default: valid \(\d+ policies, 1 agent pool\)\n$/);
  }

  // --offline with an empty cache: the install gets nothing from a registry, so a single dependency would fail it.
  // The package has none: what the bin runs is inside the bundle, and package.json's packages are devDependencies.
  const install = async (prefix: string, what: string, ...flags: string[]) => {
    const cache = await temp('pps-npm-cache-');
    const { stdout } = await run('npm', ['install', '--global', '--offline', '--cache', cache, '--no-audit', '--no-fund', ...flags, '--prefix', prefix, what], { cwd: prefix });
    assert.match(stdout, /\badded 1 package\b/, stdout);
    assert.deepEqual((await readdir(join(prefix, 'lib', 'node_modules'))).filter((name) => !name.startsWith('.')), ['policy-pool-sync']);
    assert.ok(!existsSync(join(prefix, 'lib', 'node_modules', 'policy-pool-sync', 'node_modules')), 'the install added no dependency');
  };

  it('npm pack packs a clone with no build, and npm install -g installs the tarball offline: one package', async () => {
    clone = join(await temp('pps-clone-'), 'policy-pool-sync');
    await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
    const packed = await temp('pps-pack-');
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', packed], { cwd: clone, maxBuffer: 16 * 1024 * 1024 });
    const [manifest] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(manifest);
    const files = manifest.files.map((f) => f.path);
    for (const file of ['package.json', 'bundle/policy-pool-sync.mjs', 'bundle/github-comment.mjs', 'schemas/config.schema.json', 'schemas/emulator-seed.schema.json', 'config/default.yaml']) {
      assert.ok(files.includes(file), `${file} is not in the package`);
    }
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/') || f.startsWith('dist/')), 'sources, tests and the tsc build stay out of the package');
    const pkg = JSON.parse(await readFile(join(clone, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const key of ['optionalDependencies', 'peerDependencies', 'bundleDependencies']) assert.equal(pkg[key], undefined, `package.json has ${key}`);
    assert.deepEqual(pkg['dependencies'] ?? {}, {}, 'what the bin runs is inside the bundle: every package is a devDependency');

    const prefix = await temp('pps-global-');
    await install(prefix, join(packed, manifest.filename));
    await works(prefix);
  });

  it('npm install -g installs from a git URL, with no build', async () => {
    const prefix = await temp('pps-global-git-');
    // --install-links: npm copies the package out of its temporary clone instead of linking to it.
    await install(prefix, `git+file://${clone}`, '--install-links');
    await works(prefix);
  });
});
