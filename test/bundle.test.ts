/** The committed bundle: the same bytes as a build of the sources, and a command line that needs nothing but Node. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { packageVersion } from '../src/version.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { useWorld } from './helpers/world.js';
import { ORG } from './helpers/emulator.js';

const run = promisify(execFile);
const BUNDLE = join(REPO_ROOT, 'bundle');

/** The part of esbuild's metafile read here: each output file's imports, and whether the bundle left them outside. */
interface EsbuildMeta {
  outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
}

describe('the bundle', () => {
  let built: string;
  let outside: string[] | undefined;
  before(async () => {
    built = await mkdtemp(join(tmpdir(), 'pps-bundle-'));
  });
  after(() => rm(built, { recursive: true, force: true }));

  it('is in step with the sources: npm run bundle rebuilds the same bytes', async () => {
    await run(process.execPath, [join(REPO_ROOT, 'scripts/bundle.mjs'), built, '--metafile', join(built, 'meta.json')]);
    const meta = JSON.parse(await readFile(join(built, 'meta.json'), 'utf8')) as EsbuildMeta;
    await rm(join(built, 'meta.json'));
    outside = Object.entries(meta.outputs).flatMap(([file, output]) =>
      output.imports.filter((i) => i.external && !i.path.startsWith('node:') && !isBuiltin(i.path)).map((i) => `${basename(file)}: ${i.kind} ${i.path}`),
    );
    const files = (await readdir(built)).sort();
    assert.deepEqual((await readdir(BUNDLE)).sort(), files);
    for (const file of files) {
      const same = (await readFile(join(built, file))).equals(await readFile(join(BUNDLE, file)));
      assert.ok(same, `bundle/${file} is not what the sources build: run npm run bundle and commit bundle/`);
    }
  });

  // The packed install has no dependencies (package.json's are all devDependencies): whatever the bundle imports and
  // does not hold would be loaded from some node_modules above it, or fail, at run time.
  it('holds every import but those of Node itself', () => {
    assert.ok(outside !== undefined, 'the build above ran');
    assert.deepEqual(outside, []);
  });
});

describe('the bundle alone, copied where there is no node_modules', () => {
  const fixture = useWorld();
  let alone: string;
  before(async () => {
    alone = await mkdtemp(join(tmpdir(), 'pps-alone-'));
    await copyFile(join(BUNDLE, 'policy-pool-sync.mjs'), join(alone, 'policy-pool-sync.mjs'));
  });
  after(() => rm(alone, { recursive: true, force: true }));
  const cli = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, [join(alone, 'policy-pool-sync.mjs'), ...args], { cwd: alone, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env } });

  it('prints the version and validates a declared repo (the schemas are inside)', async () => {
    assert.equal((await cli(['--version'])).stdout, `${packageVersion()}\n`);
    const validate = await cli(['--validate', '--source-dir', join(REPO_ROOT, 'examples/declared')]);
    assert.match(validate.stdout, /^default: valid \(\d+ policies, 1 agent pool\)\n$/);
  });

  it('plans and applies against the API', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/bundled.native': 'main = rule { true }\n', 'agent-pools/bundled.yaml': 'organization-scoped: true\n' });
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir };
    const argv = ['--source-dir', dir, '--organization', ORG, '--api-url', world.url];
    const applied = await cli(['--reconcile', ...argv], env);
    assert.match(applied.stdout, /Apply complete! Resources: 2 created/);
    const plan = await cli(['--dry-run', '--output', 'json', '--detailed-exitcode', ...argv], env);
    assert.equal(JSON.parse(plan.stdout).summary.create, 0);
  });
});
