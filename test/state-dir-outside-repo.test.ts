/** The tool's own files never change what it reports about the declared repo: its revision stays clean. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { defaultStateDir } from '../src/config/default-state-dir.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { gitRepo } from './helpers/git-repo.js';
import { tempTree } from './helpers/temp-tree.js';
import { useWorld } from './helpers/world.js';

const git = promisify(execFile);

describe('the state dir of a run in a clean clone', () => {
  const fixture = useWorld();

  it('is outside the clone by default: the dry run after an apply leaves git status clean and the revision without -dirty', async (t) => {
    const { world } = fixture;
    const repo = await gitRepo(t);
    const sha = await repo.commit({ 'policies/tagged.native': 'main = rule { true }\n' });
    const runnerTemp = await tempTree(t, {}, 'pps-runner-temp-');
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn', GITHUB_ACTIONS: 'true', RUNNER_TEMP: runnerTemp, XDG_CACHE_HOME: join(runnerTemp, 'not-this') };
    const run = (mode: string, extra: string[] = []) =>
      runCli([mode, '--source-dir', '.', '--organization', ORG, '--api-url', world.url, '--source', 'clone', ...extra], { cwd: repo.dir, env });

    assert.equal((await run('--reconcile')).code, 0);
    // The dry run downloads the live code, and keeps it in the code cache of the state dir.
    const plan = await run('--dry-run');
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, new RegExp(`revision ${sha}\\n`));
    assert.equal((await git('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo.dir })).stdout, '');
    assert.equal((await readdir(join(runnerTemp, 'policy-pool-sync', '.code-cache'))).length, 1, 'the code cache is in $RUNNER_TEMP');

    // A state dir given inside the clone (a cache kept where GitLab can keep it) is the tool's own: still not -dirty.
    for (let i = 0; i < 2; i += 1) {
      const inside = await run('--dry-run', ['--state-dir', '.policy-pool-sync']);
      assert.match(inside.stdout, new RegExp(`revision ${sha}\\n`));
    }
    assert.deepEqual(await readdir(join(repo.dir, '.policy-pool-sync')), ['.code-cache']);
  });

  it('is the platform\'s cache folder outside GitHub Actions', () => {
    assert.equal(defaultStateDir({ HOME: '/home/ci' }, 'linux'), '/home/ci/.cache/policy-pool-sync');
    assert.equal(defaultStateDir({ HOME: '/home/ci', XDG_CACHE_HOME: '/var/cache/ci' }, 'linux'), '/var/cache/ci/policy-pool-sync');
    assert.equal(defaultStateDir({ HOME: '/Users/ci' }, 'darwin'), '/Users/ci/Library/Caches/policy-pool-sync');
    assert.equal(defaultStateDir({ HOME: '/home/ci', RUNNER_TEMP: '/runner/tmp' }, 'linux'), '/home/ci/.cache/policy-pool-sync', 'RUNNER_TEMP only under Actions');
    assert.equal(defaultStateDir({ HOME: '/home/ci', XDG_CACHE_HOME: 'relative' }, 'linux'), '/home/ci/.cache/policy-pool-sync', 'a relative XDG_CACHE_HOME is ignored, as the XDG spec says');
  });
});
