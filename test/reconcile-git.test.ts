import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli, spawnCli } from './helpers/cli.js';
import { smallRepo } from './helpers/repos.js';
import { ORG, tempRepo, useWorld } from './helpers/world.js';

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' }).trim();
}

describe('one-shot pass over a git source from a config file', () => {
  const fixture = useWorld();

  it('fetches the ref, plans against its commit, and reports the commit as the revision', async () => {
    const world = fixture.world;
    const repo = await tempRepo(Object.fromEntries(Object.entries(smallRepo()).map(([p, c]) => [`declared/${p}`, c])));
    const work = await mkdtemp(join(tmpdir(), 'pps-work-'));
    fixture.track(repo);
    fixture.track(work);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'add', '.');
    git(repo, 'commit', '-q', '-m', 'declare policies');
    const commit = git(repo, 'rev-parse', 'HEAD');
    const config = join(work, 'sync.yaml');
    await writeFile(config, [
      `api: { url: "${world.url}" }`,
      'sources:',
      `  - { name: platform, organization: ${ORG}, git: { url: "${repo}", ref: main, path: declared } }`,
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
