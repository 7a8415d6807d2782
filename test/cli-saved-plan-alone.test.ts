/** A saved plan records its sources and API; applying it takes them from this run, and --show prints it with no API call. */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { spawnCli } from './helpers/cli.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { useWorld } from './helpers/world.js';

describe('a saved plan on its own', () => {
  const fixture = useWorld();

  it('--reconcile --plan FILE applies with the dry run\'s flags again; the file\'s record of them is only compared', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/alone.native': 'main = rule { true }\n', 'agent-pools/alone.yaml': 'organization-scoped: true\n' });
    const file = join(await fixture.repo({}), 'plan.json');
    const made = await world.cli('--dry-run', dir, ['--out', file, '--source', 'alone', '--prune']);
    assert.equal(made.code, 0, made.stderr);
    const saved = JSON.parse(await readFile(file, 'utf8')) as { run: { api_url: string; sources: Array<{ name: string; path: string; prune: boolean }> } };
    assert.equal(saved.run.api_url, world.url);
    assert.deepEqual(saved.run.sources.map((s) => [s.name, s.path, s.prune]), [['alone', dir, true]]);

    // From the repository's root, where config/default.yaml (the daemon's, with the embedded API) lies: not read.
    const alone = await spawnCli(['--reconcile', '--plan', file], { cwd: REPO_ROOT, env: { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir } });
    assert.equal(alone.code, 1, alone.stdout + alone.stderr);
    assert.match(alone.stderr, /this run names no API .*Pass the dry run's flags again/);
    const applied = await world.cli('--reconcile', dir, ['--plan', file, '--source', 'alone', '--prune']);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.match(applied.stdout, /Apply complete! Resources: 2 created/);
    assert.ok((await world.policies()).some((p) => p.name === 'alone'));
  });

  it('--show FILE prints the saved plan as text, Markdown or its JSON, with no token and no API', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/shown.native': 'main = rule { true }\n' });
    const file = join(await fixture.repo({}), 'plan.json');
    assert.equal((await world.cli('--dry-run', dir, ['--out', file, '--source', 'shown'])).code, 0);
    await world.clearRequests();
    const text = await spawnCli(['--show', file]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /policy "shown" will be created/);
    assert.match(text.stdout, /Plan: 1 to create, 0 to update, 0 to replace, 0 to delete\./);
    const markdown = await spawnCli(['--show', file, '--output', 'markdown']);
    assert.match(markdown.stdout, /^<!-- policy-pool-sync plan source=shown -->\n/);
    const json = await spawnCli(['--show', file, '--output', 'json']);
    assert.equal(json.stdout, await readFile(file, 'utf8'));
    assert.deepEqual(await world.requests(), []);
    const both = await spawnCli(['--show', file, '--reconcile']);
    assert.equal(both.code, 1);
  });
});
