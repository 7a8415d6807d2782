/**
 * A versioned policy set from a folder of the declared repo: the FSBP library copied in as it is, planned, applied
 * until its version is ready, and then in step; its config checked before any request; an errored version exits 1.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { spawnCli } from './helpers/cli.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { useWorld } from './helpers/world.js';

const FSBP = path.join(REPO_ROOT, 'test/fixtures/corpus/fsbp-aws-set');

/** A declared repo holding the FSBP library as policy-sets/fsbp-aws/ and two individual policies. */
function fsbpRepo(dir: string): string {
  cpSync(FSBP, path.join(dir, 'policy-sets/fsbp-aws'), { recursive: true });
  return withPolicies(dir);
}

/**
 * The same library cut to its four modules and two of its policies (ECR's), laid out as its authors lay it out: what
 * the dialect cases need, without packing and ingesting 281 policies three times.
 */
function smallFsbpRepo(dir: string, folder = 'policy-sets/fsbp-aws'): string {
  const set = path.join(dir, folder);
  cpSync(path.join(FSBP, 'modules'), path.join(set, 'modules'), { recursive: true });
  mkdirSync(path.join(set, 'policies/ecr'), { recursive: true });
  const kept = ['ecr-tag-immutability-configured', 'ecr-image-scanning-enabled'];
  for (const name of kept) cpSync(path.join(FSBP, `policies/ecr/${name}.sentinel`), path.join(set, `policies/ecr/${name}.sentinel`));
  const config = readFileSync(path.join(FSBP, 'sentinel.hcl'), 'utf8');
  const blocks = config.split(/\n(?=policy "|import ")/).filter((block) => block.startsWith('import ') || kept.some((name) => block.startsWith(`policy "${name}"`)));
  writeFileSync(path.join(set, 'sentinel.hcl'), `${blocks.join('\n').trim()}\n`);
  return withPolicies(dir);
}

function withPolicies(dir: string): string {
  mkdirSync(path.join(dir, 'policies'), { recursive: true });
  writeFileSync(path.join(dir, 'policies/require-tags.sentinel'), 'main = rule { true }\n');
  writeFileSync(path.join(dir, 'policies/no-public-buckets.sentinel'), 'main = rule { true }\n');
  return dir;
}

interface SetDoc { id: string; attributes: { name: string; description: string | null; versioned: boolean }; relationships: Record<string, { data: unknown }> }

/** The whole library once; the dialects on its cut, which differs from it only in size. */
const CASES = [
  { title: 'an API that says native', nativeKind: 'native', extra: [], repo: fsbpRepo, shape: '281 policies, 4 modules' },
  { title: 'the hosted dialect (sentinel), given by --native-kind', nativeKind: 'sentinel', extra: ['--native-kind', 'sentinel'], repo: smallFsbpRepo, shape: '2 policies, 4 modules' },
  { title: 'the hosted dialect (sentinel), learned, not given', nativeKind: 'sentinel', extra: [], repo: smallFsbpRepo, shape: '2 policies, 4 modules' },
] as const;

for (const { title, nativeKind, extra, repo, shape } of CASES) {
  describe(`a versioned policy set from a folder: ${title}`, () => {
    const fixture = useWorld({ nativeKind, organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

    it('plans the set with its policies and modules, applies it to ready, then plans no changes', async () => {
      const { world } = fixture;
      const dir = repo(await fixture.repo({}));
      const plan = await world.cli('--dry-run', dir, [...extra]);
      assert.equal(plan.code, 0, plan.stdout + plan.stderr);
      assert.match(plan.stdout, new RegExp(`policy-set "fsbp-aws" will be created \\(versioned, ${shape}, [\\d.]+ [kM]B \\([\\d.]+ kB packed\\)\\)`));
      assert.match(plan.stdout, /Plan: 3 to create, 0 to update, 0 to replace, 0 to delete\./);
      assert.doesNotMatch(plan.stdout, /ecr-tag-immutability-configured/, 'no file of the set is read as a policy');

      const applied = await world.cli('--reconcile', dir, [...extra]);
      assert.equal(applied.code, 0, applied.stdout + applied.stderr);
      const sets = (await world.call('GET', `/organizations/${ORG}/policy-sets?include=current_version`)).json as { data: SetDoc[] };
      const fsbp = sets.data.find((s) => s.attributes.name === 'fsbp-aws');
      assert.ok(fsbp, JSON.stringify(sets));
      assert.equal(fsbp.attributes.versioned, true);
      assert.match(fsbp.attributes.description ?? '', /content=sha256:[0-9a-f]{64}/);
      assert.notEqual((fsbp.relationships['current-version'] as { data: unknown } | undefined)?.data ?? null, null, 'a ready version is current');

      await world.clearRequests();
      const again = await world.cli('--dry-run', dir, [...extra]);
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /No changes\. The API matches the declared repo\./);
      const requests = await world.requests();
      assert.ok(requests.every((r) => r.method === 'GET' && !/policy-set-versions|\/download/.test(r.path)), requests.map((r) => `${r.method} ${r.path}`).join('\n'));
    });
  });
}

describe('a policy set folder is checked before any request', () => {
  const fixture = useWorld();

  const REFUSALS = [
    ['a missing file', 'policy "one"', './policies/missing.sentinel', 'is not a file of the set\'s folder (missing, a link out of the folder, or left out by .syncignore or the built-in rules)'],
    ['a path through ..', 'policy "one"', '../outside.sentinel', 'goes through ..; every file of a set must be inside its folder'],
    ['a remote URL', 'policy "one"', 'https://example.com/a.sentinel', 'is a remote location; the set\'s files must be in its folder'],
    ['a static import through ..', 'import "static" "data"', '../outside.json', 'goes through ..; every file of a set must be inside its folder'],
    ['a plugin import from an absolute path', 'import "plugin" "tool"', '/usr/bin/tool', 'is an absolute path; name the file relative to the set\'s folder'],
  ] as const;
  for (const [what, block, source, reason] of REFUSALS) {
    it(`a sentinel.hcl naming ${what} is refused with that reason alone, and the emulator sees no request`, async () => {
      const { world } = fixture;
      const policy = 'policy "one" {\n  source = "./policies/one.sentinel"\n  enforcement_level = "advisory"\n}\n';
      const config = block === 'policy "one"' ? policy.replace('./policies/one.sentinel', source) : `${policy}${block} {\n  source = "${source}"\n}\n`;
      const dir = await fixture.repo({
        'outside.sentinel': 'main = rule { true }\n',
        'outside.json': '{}\n',
        'policy-sets/bad/sentinel.hcl': config,
        'policy-sets/bad/policies/one.sentinel': 'main = rule { true }\n',
      });
      await world.clearRequests();
      for (const mode of ['--validate', '--dry-run']) {
        const run = await world.cli(mode, dir);
        assert.equal(run.code, 1, `${mode}: ${run.stdout}${run.stderr}`);
        // The problem list (`--validate`) or the plan's errors (`- `) name each problem by its file relative to the repo, one to a line.
        const problems = `${run.stdout}${run.stderr}`.split('\n').map((line) => line.trim().replace(/^- /, '')).filter((line) => line.startsWith('policy-sets/'));
        assert.deepEqual([...new Set(problems)], [`policy-sets/bad/sentinel.hcl: ${block} source: "${source}" ${reason}`], run.stdout + run.stderr);
      }
      assert.deepEqual(await world.requests(), []);
    });
  }

  it('a config that is not HCL names the file, line and column', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policy-sets/broken/sentinel.hcl': 'policy "one" {\n  source = \n' });
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout + run.stderr, /policy-sets\/broken\/sentinel\.hcl:2: does not parse as HCL: sentinel\.hcl:2,/);
  });
});

describe('a version the service marks errored', () => {
  const fixture = useWorld({ nativeKind: 'sentinel', organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('fails the run (exit 1) with the service\'s error-message in text, JSON and Markdown, and the next plan uploads again', async () => {
    const { world } = fixture;
    // The hosted service reads only sentinel.hcl: the document's native.hcl passes every check here and errors there.
    const dir = await fixture.repo({
      'policy-sets/neutral/native.hcl': 'policy "one" {\n  source = "./one.sentinel"\n  enforcement_level = "advisory"\n}\n',
      'policy-sets/neutral/one.sentinel': 'main = rule { true }\n',
    });
    const outputs: Record<string, string> = {};
    for (const output of ['text', 'json', 'markdown']) {
      const run = await world.cli('--reconcile', dir, ['--output', output]);
      assert.equal(run.code, 1, `${output}: ${run.stdout}${run.stderr}`);
      outputs[output] = run.stdout;
    }
    const message = /no sentinel\.hcl at the root of the policy set version's archive/;
    assert.match(outputs['text']!, /policy-set "neutral" failed: version polsetver-\S+ of policy set "neutral" errored: no sentinel\.hcl/);
    const json = JSON.parse(outputs['json']!) as { sources: Array<{ changes: Array<{ resource: string; outcome: string; message: string }> }> };
    const change = json.sources[0]!.changes.find((c) => c.resource === 'policy-set');
    assert.equal(change?.outcome, 'failed');
    assert.match(change.message, message);
    assert.match(outputs['markdown']!, message);
    // The marker records no content for a version that did not become ready: each run uploads again.
    const plan = await world.cli('--dry-run', dir);
    assert.match(plan.stdout, /policy-set "neutral" will be updated in-place \(differs in content\)/);
    assert.match(plan.stdout, /its newest version polsetver-\S+ errored: no sentinel\.hcl/);
  });
});

describe('a changed content names the files that changed', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });
  const config = (names: string[]) => names.map((n) => `policy "${n}" {\n  source = "./${n}.sentinel"\n  enforcement_level = "advisory"\n}\n`).join('');

  it('added, changed and removed files under the content field, in text, Markdown and a saved plan; the digests alone where the state dir has not seen the content before', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/small/sentinel.hcl': config(['keep', 'edit', 'drop']),
      'policy-sets/small/keep.sentinel': 'main = rule { true }\n',
      'policy-sets/small/edit.sentinel': 'main = rule { true }\n',
      'policy-sets/small/drop.sentinel': 'main = rule { true }\n',
    });
    assert.equal((await world.cli('--reconcile', dir)).code, 0);
    writeFileSync(path.join(dir, 'policy-sets/small/sentinel.hcl'), config(['keep', 'edit', 'add']));
    writeFileSync(path.join(dir, 'policy-sets/small/edit.sentinel'), 'main = rule { false }\n');
    writeFileSync(path.join(dir, 'policy-sets/small/add.sentinel'), 'main = rule { true }\n');
    rmSync(path.join(dir, 'policy-sets/small/drop.sentinel'));

    const text = await world.cli('--dry-run', dir);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /~ content = "sha256:[0-9a-f]{12}" -> "4 files, [\d.]+ k?B \(sha256:[0-9a-f]{12}\)"\n {10}# 4 files changed \(1 added, 2 changed, 1 removed\):\n {10}\+ add\.sentinel\n {10}- drop\.sentinel\n {10}~ edit\.sentinel\n {10}~ sentinel\.hcl\n/);
    assert.doesNotMatch(text.stdout, /keep\.sentinel/, 'an unchanged file is not listed');
    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.match(markdown.stdout, /  - 4 files changed \(1 added, 2 changed, 1 removed\):\n    - \+ `add\.sentinel`\n    - - `drop\.sentinel`\n    - ~ `edit\.sentinel`\n    - ~ `sentinel\.hcl`\n/);

    // A saved plan carries the list; applied where the state dir has not seen the content before (a new runner), it is
    // still the same change: the list is words for a person, not compared.
    const file = path.join(await fixture.repo({}), 'plan.json');
    assert.equal((await world.cli('--dry-run', dir, ['--out', file])).code, 0);
    const shown = await spawnCli(['--show', file]);
    assert.match(shown.stdout, /# 4 files changed \(1 added, 2 changed, 1 removed\):/);
    const elsewhere = await fixture.repo({});
    const applied = await world.cli('--reconcile', dir, ['--plan', file], 'warn', { STATE_DIR: elsewhere });
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    assert.match(applied.stdout, /Apply complete! Resources: 0 created, 1 updated/);

    // Without what the state dir keeps (--no-cache, or a first run on this machine), the digests alone.
    writeFileSync(path.join(dir, 'policy-sets/small/keep.sentinel'), 'main = rule { 1 > 0 }\n');
    const unseen = await world.cli('--dry-run', dir, ['--no-cache']);
    assert.match(unseen.stdout, /~ content = "sha256:[0-9a-f]{12}" -> "4 files, /);
    assert.doesNotMatch(unseen.stdout, /files changed/);
  });
});

describe('a policy set folder wherever it sits in the repo', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  it('libraries/fsbp/ is planned and applied as a set, and none of its files as a policy', async () => {
    const { world } = fixture;
    // The library's cut: where a set's folder sits, not its size, is what is tested.
    const dir = smallFsbpRepo(await fixture.repo({ 'docs/readme.md': 'not a set\n' }), 'libraries/fsbp');
    rmSync(path.join(dir, 'policies/no-public-buckets.sentinel'));
    const plan = await world.cli('--dry-run', dir);
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /policy-set "fsbp" will be created \(versioned, 2 policies, 4 modules, /);
    assert.match(plan.stdout, /Plan: 2 to create, 0 to update, 0 to replace, 0 to delete\./);
    assert.doesNotMatch(plan.stdout, /ecr-tag-immutability-configured/, 'no file of the set is read as a policy');
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const sets = (await world.call('GET', `/organizations/${ORG}/policy-sets`)).json as { data: SetDoc[] };
    assert.deepEqual(sets.data.map((s) => s.attributes.name), ['fsbp']);
  });

  it('a set folder inside another set\'s folder outside policy-sets/ is a problem naming both', async () => {
    const { world } = fixture;
    const config = 'policy "one" {\n  source = "./one.sentinel"\n  enforcement_level = "advisory"\n}\n';
    const dir = await fixture.repo({
      'lib/outer/sentinel.hcl': config, 'lib/outer/one.sentinel': 'main = rule { true }\n',
      'lib/outer/inner/sentinel.hcl': config, 'lib/outer/inner/one.sentinel': 'main = rule { true }\n',
    });
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout + run.stderr, /lib\/outer\/inner: holds a policy set's config file inside the policy set of lib\/outer/);
  });
});
