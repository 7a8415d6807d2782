/**
 * Evidence per policy, against the emulator's runs: a versioned set whose new content raises several policies names
 * each raised policy with its own failing workspaces and counts, in text and Markdown, the first ten (most failing
 * first) and then a count; the JSON plan gives every one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { EVIDENCE_WORKSPACES } from './helpers/evidence.js';
import { publishedSchema } from './helpers/published-schema.js';
import { useWorld } from './helpers/world.js';

const block = (name: string, level: string) => `policy "${name}" {\n  source = "./${name}.sentinel"\n  enforcement_level = "${level}"\n}\n`;
/** A versioned set `lib` holding `names`, each at `level`. */
const lib = (names: readonly string[], level: (name: string) => string) => ({
  'policy-sets/lib/sentinel.hcl': names.map((n) => block(n, level(n))).join(''),
  ...Object.fromEntries(names.map((name) => [`policy-sets/lib/${name}.sentinel`, 'main = rule { true }\n'])),
  'policy-sets/lib/policy-set.yaml': 'global: true\n',
});

interface Document {
  sources: Array<{ changes: Array<{ name: string; evidence?: { by_policy?: Array<{ policy: string; failing: string[]; passing: number; not_evaluated: number }> } }> }>;
}

describe('evidence per policy of a change that raises several', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });

  it('a raise of two policies in a versioned set names which one fails where, in text and Markdown', async () => {
    const { world } = fixture;
    const created = await world.cli('--reconcile', await fixture.repo(lib(['public', 'logging'], () => 'advisory')));
    assert.equal(created.code, 0, created.stdout + created.stderr);
    for (const [workspace, outcomes] of [['ws-AppProd000001', { public: 'failed' }], ['ws-DataProd00001', { logging: 'failed' }], ['ws-WebDev0000001', {}]] as const) {
      const run = await world.control('POST', '/runs', { workspace, outcomes });
      assert.equal(run.status, 200, run.text);
    }
    const dir = await fixture.repo(lib(['public', 'logging'], () => 'hard-mandatory'));
    const text = await world.cli('--dry-run', dir);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.includes([
      '        # by policy (2 raised policies):',
      '        #   logging (hard-mandatory): fails in 1 (data-prod); 2 pass; 1 never evaluated it',
      '        #   public (hard-mandatory): fails in 1 (app-prod); 2 pass; 1 never evaluated it',
      '        # ! would block runs in app-prod, data-prod',
    ].join('\n')), text.stdout);

    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.ok(markdown.stdout.includes([
      '  - by policy (2 raised policies):',
      '    - logging (hard-mandatory): fails in 1 (data-prod); 2 pass; 1 never evaluated it',
      '    - public (hard-mandatory): fails in 1 (app-prod); 2 pass; 1 never evaluated it',
    ].join('\n')), markdown.stdout);

    const json = JSON.parse((await world.cli('--dry-run', dir, ['--output', 'json'])).stdout) as Document;
    const validate = publishedSchema('plan');
    assert.ok(validate(json), JSON.stringify(validate.errors));
    assert.deepEqual(json.sources[0]!.changes.find((c) => c.name === 'lib')!.evidence!.by_policy, [
      { policy: 'logging', level: 'hard-mandatory', failing: ['data-prod'], passing: 2, not_evaluated: 1, blocking: true },
      { policy: 'public', level: 'hard-mandatory', failing: ['app-prod'], passing: 2, not_evaluated: 1, blocking: true },
    ]);
  });

  it('past ten raised policies: the ten most failing named, then a count; the JSON plan has every one', async () => {
    const { world } = fixture;
    const names = Array.from({ length: 12 }, (_, i) => `p${String(i + 1).padStart(2, '0')}`);
    assert.equal((await world.cli('--reconcile', await fixture.repo(lib(names, () => 'advisory')))).code, 0);
    // p12 fails in two workspaces, p11 in one: they come first, before the rest by name.
    for (const [workspace, outcomes] of [['ws-AppProd000001', { p12: 'failed', p11: 'failed' }], ['ws-DataProd00001', { p12: 'failed' }]] as const) {
      assert.equal((await world.control('POST', '/runs', { workspace, outcomes })).status, 200);
    }
    const dir = await fixture.repo(lib(names, () => 'soft-mandatory'));
    const text = (await world.cli('--dry-run', dir)).stdout;
    const listed = [...text.matchAll(/^ {8}# {3}(p\d\d) /gm)].map((m) => m[1]);
    assert.deepEqual(listed, ['p12', 'p11', 'p01', 'p02', 'p03', 'p04', 'p05', 'p06', 'p07', 'p08']);
    assert.match(text, /# by policy \(10 of 12 raised, most failing first\):\n/);
    assert.match(text, /# {3}p12 \(soft-mandatory\): fails in 2 \(app-prod, data-prod\); 0 pass; 2 never evaluated it\n/);
    assert.match(text, /# {3}… and 2 more policies, none of them failing anywhere \(the JSON plan has each\)\n/);
    const markdown = (await world.cli('--dry-run', dir, ['--output', 'markdown'])).stdout;
    assert.match(markdown, / {4}- … and 2 more policies, none of them failing anywhere/);
    const json = JSON.parse((await world.cli('--dry-run', dir, ['--output', 'json'])).stdout) as Document;
    assert.equal(json.sources[0]!.changes.find((c) => c.name === 'lib')!.evidence!.by_policy?.length, 12);
  });
});
