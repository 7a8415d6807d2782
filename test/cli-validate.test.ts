import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { useTempTrees } from './helpers/temp-tree.js';
import { useWorld } from './helpers/world.js';

const tree = useTempTrees();

const REPO = { 'policies/aws/tags.native': 'main = rule { true }\n', 'agent-pools/build.yaml': '{}\n' };

describe('--validate', () => {
  it('needs no --organization with --source-dir, and no API', async () => {
    const dir = await tree(REPO);
    const run = await runCli(['--validate', '--source-dir', dir]);
    assert.deepEqual([run.code, run.stdout, run.stderr], [0, 'default: valid (1 policy, 1 agent pool)\n', '']);
  });

  it('--output json gives each source as data, and markdown as a list; the exit code is the same in every format', async () => {
    const good = await tree({ ...REPO, 'policies/LOUD.NATIVE': 'main = rule { true }\n' });
    const json = await runCli(['--validate', '--source-dir', good, '--output', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), {
      format_version: '1',
      sources: [{
        name: 'default', valid: true, policies: 1, policy_sets: 0, agent_pools: 1, errors: [],
        warnings: ['policies/LOUD.NATIVE: is not read: only lower-case extensions are; rename it to LOUD.native to declare it'],
      }],
    });
    const bad = await tree({ 'policies/p.native': 'main = rule { true }\n', 'policies/p.yaml': 'enforcement-level: mandatory\n' });
    const refused = await runCli(['--validate', '--source-dir', bad, '--output', 'json']);
    assert.equal(refused.code, 1);
    const [source] = (JSON.parse(refused.stdout) as { sources: Array<{ valid: boolean; policies: number | null; errors: string[] }> }).sources;
    assert.equal(source?.valid, false);
    assert.equal(source?.policies, null);
    assert.match(source?.errors[0] ?? '', /^1 problem in /);
    assert.match(source?.errors[1] ?? '', /^policies\/p\.yaml:1: /);
    const markdown = await runCli(['--validate', '--source-dir', bad, '--output', 'markdown']);
    assert.equal(markdown.code, 1);
    assert.match(markdown.stdout, /^### policy-pool-sync: declared repo check\n\n- ❌ `default`: 1 problem in .*\n  - `policies\/p\.yaml:1: /);
    assert.match((await runCli(['--validate', '--source-dir', good, '--output', 'markdown'])).stdout, /^- ✅ `default`: valid \(1 policy, 1 agent pool\)\n  - ⚠️ policies\/LOUD\.NATIVE: is not read/m);
  });

  it('lists warnings under a valid source: files that look declared but are not read, empty code', async () => {
    const dir = await tree({ ...REPO, 'policies/LOUD.NATIVE': 'main = rule { true }\n', 'policies/empty.native': '' });
    const run = await runCli(['--validate', '--source-dir', dir]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, [
      'default: valid (2 policies, 1 agent pool)',
      '  warning: policies/LOUD.NATIVE: is not read: only lower-case extensions are; rename it to LOUD.native to declare it',
      '  warning: policies/empty.native: is empty; the policy is declared with no code',
      '',
    ].join('\n'));
  });

  it('refuses a source that declares nothing, saying what to check', async () => {
    const dir = await tree({ 'README.md': '# nothing here\n' });
    const run = await runCli(['--validate', '--source-dir', dir]);
    assert.equal(run.code, 1);
    assert.equal(
      run.stdout,
      `default: declares nothing in ${dir}\n  A source holds policies/**/*.native, policies/**/*.rego and agent-pools/*.yaml; set allow-empty: true on the source (or pass --allow-empty) if it is meant to be empty.\n`,
    );
  });

  it('says when --source-dir points one level too deep', async () => {
    const dir = await tree(REPO);
    const run = await runCli(['--validate', '--source-dir', join(dir, 'policies')]);
    assert.equal(run.code, 1);
    assert.match(run.stdout, new RegExp(`^default: declares nothing in ${join(dir, 'policies')}\n  ${join(dir, 'policies')} looks like the policies folder itself: point at the folder that holds it\\. `));
  });

  it('accepts an empty source with --allow-empty, or allow-empty: true in the config', async () => {
    const dir = await tree({});
    const flagged = await runCli(['--validate', '--source-dir', dir, '--allow-empty']);
    assert.deepEqual([flagged.code, flagged.stdout], [0, 'default: valid (0 policies, 0 agent pools)\n']);
    const config = await tree({ 'config.yaml': `sources:\n  - { name: empty, organization: acme, path: ${JSON.stringify(dir)}, allow-empty: true }\n` });
    const configured = await runCli(['--validate', '--config', join(config, 'config.yaml')]);
    assert.deepEqual([configured.code, configured.stdout], [0, 'empty: valid (0 policies, 0 agent pools)\n']);
  });

  it('--dry-run and --reconcile still need --organization with --source-dir', async () => {
    for (const mode of ['--dry-run', '--reconcile']) {
      const run = await runCli([mode, '--source-dir', '.']);
      assert.deepEqual([run.code, run.stderr], [1, 'error: --source-dir needs --organization (only --validate does without)\n'], mode);
    }
  });
});

describe('--allow-empty on a pass', () => {
  const fixture = useWorld();

  it('lets an empty source prune what it wrote, which is refused without it', async () => {
    const { world } = fixture;
    const full = await fixture.repo({ 'policies/tags.native': 'main = rule { true }\n' });
    assert.equal((await world.cli('--reconcile', full)).code, 0);
    const empty = await tree({});
    const refused = await world.cli('--dry-run', empty, ['--prune', '--source', 'default']);
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /the source declares nothing in .*set allow-empty: true on the source \(or pass --allow-empty\)/);
    const allowed = await world.cli('--dry-run', empty, ['--prune', '--source', 'default', '--allow-empty', '--detailed-exitcode']);
    assert.equal(allowed.code, 2, allowed.stdout + allowed.stderr);
    assert.match(allowed.stdout, /Plan: 0 to create, 0 to update, 0 to replace, 1 to delete\./);
  });
});
