/** The package as npm runs it: `npm start` is ready in seconds and stops with its npm process; a git checkout packs, and installs from the tarball or the git URL, with no build. */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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

describe('npm scripts', () => {
  it('start runs the bundle itself (prestart only re-bundles, in well under a second): ready in under 5 s, and killing npm stops the daemon', async () => {
    const scripts = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts['prestart'], 'node scripts/bundle.mjs');
    assert.match(scripts['start'] ?? '', /^exec node bundle\/policy-pool-sync\.mjs /, 'the shell npm starts the script in is replaced by node');
    assert.equal(scripts['prepare'], undefined, 'an install from git builds nothing');

    const started = Date.now();
    const npm = spawn('npm', ['start'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], LISTEN_ADDRESS: '127.0.0.1:0', STATE_DIR: await temp('pps-start-'), LOG_LEVEL: 'info', LOG_FORMAT: 'json' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so that the test can remove whatever the run left behind if it fails.
      detached: true,
    });
    let stderr = '';
    npm.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    npm.stdout.resume();
    const exited = new Promise<unknown>((resolve) => npm.once('exit', resolve));
    try {
      const origin = await until('the daemon to listen', () => {
        const line = stderr.split('\n').find((l) => l.includes('"daemon listening"'));
        return line === undefined ? undefined : String((JSON.parse(line) as { listen: string }).listen);
      });
      await until('/readyz to answer 200', async () => ((await fetch(`${origin}/readyz`)).status === 200 ? true : undefined));
      const seconds = (Date.now() - started) / 1000;
      assert.ok(seconds < 5, `npm start took ${seconds} s to /readyz`);
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
      }, 15_000);
    } finally {
      try {
        process.kill(-npm.pid!, 'SIGKILL');
      } catch {
        // The group is gone: everything stopped.
      }
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
    assert.match(validate.stdout, /^default: valid \(\d+ policies, 1 agent pools\)\n$/);
  }

  // --offline: the tests need no registry. --omit=optional: the runtime dependencies are inside the bundle, and only
  // dist/ (the image) installs them.
  const INSTALL = ['install', '--global', '--offline', '--omit=optional', '--no-audit', '--no-fund'];

  it('npm pack packs a clone with no build, and npm install -g installs the tarball', async () => {
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

    const prefix = await temp('pps-global-');
    await run('npm', [...INSTALL, '--prefix', prefix, join(packed, manifest.filename)], { cwd: prefix });
    await works(prefix);
  });

  it('npm install -g installs from a git URL, with no build', async () => {
    const prefix = await temp('pps-global-git-');
    // --install-links: npm copies the package out of its temporary clone instead of linking to it.
    await run('npm', [...INSTALL, '--install-links', '--prefix', prefix, `git+file://${clone}`], { cwd: prefix });
    await works(prefix);
  });
});
