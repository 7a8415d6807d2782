import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, spawnCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { gitRepo } from './helpers/git-repo.js';
import { smallRepo } from './helpers/repos.js';
import { useWorld } from './helpers/world.js';

describe('one-shot pass over a git source from a config file', () => {
  const fixture = useWorld();

  it('fetches the ref, plans against its commit, and reports the commit as the revision', async (t) => {
    const world = fixture.world;
    const repo = await gitRepo(t);
    const commit = await repo.commit(Object.fromEntries(Object.entries(smallRepo()).map(([p, c]) => [`declared/${p}`, c])), 'declare policies');
    const work = await fixture.repo();
    const config = join(work, 'sync.yaml');
    await writeFile(config, [
      `api: { url: "${world.url}" }`,
      'sources:',
      `  - { name: platform, organization: ${ORG}, git: { url: "${repo.dir}", ref: main, path: declared } }`,
      `state-dir: ${join(work, 'state')}`,
      '',
    ].join('\n'));
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn' };

    // Through the binary: exit code 2 reaches the shell, and stdout holds the JSON plan alone (logs go to stderr).
    const plan = await spawnCli(['--dry-run', '--config', config, '--output', 'json', '--detailed-exitcode'], { env: { ...env, LOG_LEVEL: 'info' } });
    assert.equal(plan.code, 2, plan.stderr);
    assert.ok(plan.stderr.includes('"level":30'), 'logs went to stderr');
    const json = JSON.parse(plan.stdout) as { sources: Array<{ name: string; revision: string | null }>; summary: { create: number } };
    assert.deepEqual(json.sources.map((s) => [s.name, s.revision]), [['platform', commit]]);
    assert.equal(json.summary.create, 5);

    const applied = await runCli(['--reconcile', '--config', config, '--source', 'platform'], { env });
    assert.equal(applied.code, 0, applied.stderr);
    const names = (await world.organization()).policies.map((p) => p['name']).sort();
    assert.deepEqual(names, ['audit-only', 'deny-public', 'limit-size', 'require-tags']);

    const unknown = await runCli(['--dry-run', '--config', config, '--source', 'nope'], { env });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /no source named "nope"/);
  });
});
