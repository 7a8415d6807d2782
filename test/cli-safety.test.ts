/** The command line never does what it was not asked to: no daemon from a forgotten mode, no green run of an empty folder, a prompt stop. */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const POLICY = { 'policies/a.native': 'main = rule { true }\n' };

describe('a one-shot flag without a mode', () => {
  const fixture = useWorld();

  it('is an error that names the modes, and starts no daemon', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(POLICY);
    await world.clearRequests();
    const run = await spawnCli(['--output', 'markdown', '--detailed-exitcode', '--source-dir', dir, '--organization', ORG], {
      env: { API_BASE_URL: world.url, API_TOKEN: world.token, LISTEN_ADDRESS: '127.0.0.1:0', STATE_DIR: world.stateDir },
      // A daemon would never end: killed, it fails the test instead of hanging it.
      timeoutMs: 15_000,
    });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^error: --source-dir, --organization, --output, --detailed-exitcode go with a one-shot mode: add --dry-run \(print the plan\), --reconcile \(apply it\) or --validate/);
    assert.deepEqual(await world.requests(), []);
  });

  for (const argv of [['--source', 'payments'], ['--prune'], ['--force'], ['--adopt'], ['--allow-empty'], ['--timeout', '5'], ['--no-cache'], ['--plan', 'p.json'], ['--out', 'p.json'], ['--api-url', 'http://x/api/v2']]) {
    it(`${argv[0]} alone is refused too`, async () => {
      const run = await spawnCli(argv, { env: { LISTEN_ADDRESS: '127.0.0.1:0' }, timeoutMs: 15_000 });
      assert.equal(run.code, 1);
      assert.match(run.stderr, new RegExp(`^error: ${argv[0]} goes with a one-shot mode: add --dry-run`));
    });
  }
});

describe('a source that declares nothing', () => {
  const fixture = useWorld();

  for (const mode of ['--dry-run', '--reconcile']) {
    it(`${mode} refuses the policies folder itself, as --validate does, before any request`, async () => {
      const { world } = fixture;
      const dir = join(await fixture.repo(POLICY), 'policies');
      await world.clearRequests();
      const run = await world.cli(mode, dir, ['--detailed-exitcode']);
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stdout + run.stderr, new RegExp(`${dir} looks like the policies folder itself: point at the folder that holds it`));
      assert.doesNotMatch(run.stdout, /No changes/);
      assert.deepEqual(await world.requests(), []);
    });
  }
});

describe('a config file and the flags that stand for one', () => {
  const fixture = useWorld();

  it('--source-dir or --organization beside --config is an error naming them, before any request: neither is dropped without a word', async () => {
    const { world } = fixture;
    const declared = await fixture.repo(POLICY);
    const config = join(await fixture.repo({}), 'sources.yaml');
    await writeFile(config, `api:\n  url: ${world.url}\nsources:\n  - name: file-source\n    organization: ${ORG}\n    path: ${declared}\n`);
    const other = await fixture.repo(POLICY);
    await world.clearRequests();
    for (const [argv, named] of [
      [['--source-dir', other, '--organization', ORG], '--source-dir and --organization are'],
      [['--organization', 'another-org'], '--organization is'],
    ] as const) {
      const run = await spawnCli(['--reconcile', '--config', config, ...argv], { env: { API_TOKEN: world.token, STATE_DIR: world.stateDir } });
      assert.equal(run.code, 1, run.stdout + run.stderr);
      assert.match(run.stderr, new RegExp(`^error: ${named} for use without a config file; --config FILE names the sources`));
    }
    assert.deepEqual(await world.requests(), []);
    assert.deepEqual(await world.writes(), []);
  });
});
