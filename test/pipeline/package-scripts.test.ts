/** The package as npm runs it: `npm start` stops with its npm process, and a git checkout packs into a working install. */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
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
  it('start runs node itself (the build is prestart), so killing the npm process stops the daemon and frees its port', async () => {
    const scripts = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    assert.equal(scripts['prestart'], 'npm run build');
    assert.match(scripts['start'] ?? '', /^exec node /, 'the shell npm starts the script in is replaced by node');
    assert.equal(scripts['prepare'], 'npm run build');

    // --ignore-scripts skips prestart (dist/ is built already) and still runs start itself.
    const npm = spawn('npm', ['start', '--ignore-scripts'], {
      cwd: REPO_ROOT,
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], LISTEN_ADDRESS: '127.0.0.1:0', STATE_DIR: await temp('pps-start-'), LOG_LEVEL: 'info' },
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
  it('npm pack builds a clone (prepare) into a package that runs on its own', async () => {
    const clone = join(await temp('pps-clone-'), 'policy-pool-sync');
    await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
    // The clone borrows this checkout's installed modules: the test needs no registry.
    await symlink(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
    const packed = await temp('pps-pack-');
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', packed], { cwd: clone, maxBuffer: 16 * 1024 * 1024 });
    const [manifest] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.ok(manifest);
    const files = manifest.files.map((f) => f.path);
    for (const file of ['package.json', 'dist/cli.js', 'dist/ci/github-comment.js', 'schemas/config.schema.json', 'schemas/emulator-seed.schema.json', 'config/default.yaml']) {
      assert.ok(files.includes(file), `${file} is not in the package`);
    }
    assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')), 'sources and tests stay out of the package');

    const installed = await temp('pps-installed-');
    await run('tar', ['-xzf', join(packed, manifest.filename), '-C', installed]);
    const root = join(installed, 'package');
    await symlink(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    const version = await run(process.execPath, [join(root, 'dist/cli.js'), '--version']);
    assert.equal(version.stdout, `${(JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version}\n`);
    const validate = await run(process.execPath, [join(root, 'dist/cli.js'), '--validate', '--source-dir', join(REPO_ROOT, 'examples/declared')]);
    assert.match(validate.stdout, /^default: valid \(\d+ policies, 1 agent pools\)\n$/);
  });
});
