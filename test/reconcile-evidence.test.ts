/**
 * Evidence before enforcement, against the emulator's runs: a plan that raises a level names the workspaces its runs
 * fail in, in every format; a plan that tightens nothing reads no run.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { ORG } from './helpers/emulator.js';
import { publishedSchema } from './helpers/published-schema.js';
import { EVIDENCE_WORKSPACES, s3Repo } from './helpers/evidence.js';
import { useWorld } from './helpers/world.js';

const EVIDENCE_PATHS = /\/runs|task-stages|policy-evaluations|policy-set-outcomes|\/workspaces/;

describe('evidence in a plan that tightens enforcement', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  let validate: ValidateFunction;
  let advisory: string;

  before(async () => {
    validate = publishedSchema('plan');
    const { world } = fixture;
    advisory = await fixture.repo(s3Repo('advisory'));
    const created = await world.cli('--reconcile', advisory);
    assert.equal(created.code, 0, created.stdout + created.stderr);
    for (const [workspace, outcome] of [['ws-AppProd000001', 'failed'], ['ws-DataProd00001', 'failed'], ['ws-WebDev0000001', 'passed']]) {
      const run = await world.control('POST', '/runs', { workspace, outcomes: { 's3-encryption': outcome } });
      assert.equal(run.status, 200, run.text);
    }
  });

  it('names the failing workspaces and counts the rest, in text, Markdown and JSON, and marks the block', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(s3Repo('hard-mandatory'));
    const text = await world.cli('--dry-run', dir);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /~ enforcement-level = "advisory" -> "hard-mandatory"\n {8}# evidence \(30 days\): fails in 2 of 4 workspaces in scope \(app-prod, data-prod\); 1 pass; 1 never evaluated it\n {8}# ! would block runs in app-prod, data-prod\n {4}\}/);

    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.match(markdown.stdout, /evidence \(30 days\): fails in 2 of 4 workspaces in scope \(app-prod, data-prod\); 1 pass; 1 never evaluated it/);
    assert.match(markdown.stdout, /⛔ \*\*would block runs in app-prod, data-prod\*\*/);

    const json = await world.cli('--dry-run', dir, ['--output', 'json']);
    const document = JSON.parse(json.stdout) as { sources: Array<{ changes: Array<{ name: string; evidence?: unknown }> }> };
    assert.ok(validate(document), JSON.stringify(validate.errors));
    assert.deepEqual(document.sources[0]!.changes.find((c) => c.name === 's3-encryption')!.evidence, {
      policies: ['s3-encryption'], in_scope: 4, evaluated: 3, failing: ['app-prod', 'data-prod'], passing: 1, not_evaluated: 1,
      window: '30 days', partial: false, blocking: ['app-prod', 'data-prod'],
    });
  });

  it('a policy not yet evaluated anywhere says so', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ ...s3Repo('advisory'), 'policies/new-rule.native': 'main = rule { true }\n', 'policies/new-rule.yaml': 'enforcement-level: soft-mandatory\npolicy-sets: [all]\n' });
    const plan = await world.cli('--dry-run', dir);
    assert.match(plan.stdout, /# evidence \(30 days\): not yet evaluated in any of the 4 workspaces in scope\n/);
  });

  it('reads no run when no change tightens enforcement: a no-op stays at its list pages, a lowered level too', async () => {
    const { world } = fixture;
    await world.clearRequests();
    const same = await world.cli('--dry-run', advisory);
    assert.match(same.stdout, /No changes/);
    const quiet = await fixture.repo(s3Repo('advisory', 'description: words only\n'));
    const described = await world.cli('--dry-run', quiet);
    assert.match(described.stdout, /\+ description = "words only"/);
    const paths = (await world.requests()).map((r) => r.path);
    assert.deepEqual(paths.filter((p) => EVIDENCE_PATHS.test(p)), []);
    assert.ok(paths.length > 0);
  });

  it('a budget too small for the runs marks the evidence partial', async () => {
    const { world } = fixture;
    const dir = await fixture.repo(s3Repo('hard-mandatory'));
    await world.clearRequests();
    const plan = await world.cli('--dry-run', dir, ['--evidence-max-requests', '1']);
    assert.match(plan.stdout, /# evidence \(30 days\): .*; partial: the read stopped before it read every run/);
    const runReads = (await world.requests()).filter((r) => /\/runs|task-stages|policy-evaluations|policy-set-outcomes/.test(r.path));
    assert.ok(runReads.length <= 1, String(runReads.length));
  });
});

describe('a versioned set\'s new content: the levels its runs already show', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  const block = (name: string, level: string) => `policy "${name}" {\n  source = "./${name}.sentinel"\n  enforcement_level = "${level}"\n}\n`;
  const lib = (config: string) => ({
    'policy-sets/lib/sentinel.hcl': config,
    ...Object.fromEntries(['public', 'logging', 'tags'].map((name) => [`policy-sets/lib/${name}.sentinel`, 'main = rule { true }\n'])),
    // Agent-enabled: its runs report through policy evaluations, whose outcomes carry each policy's level (a policy
    // check's detail says only whether a failure was allowed).
    'policy-sets/lib/policy-set.yaml': 'global: true\nagent-enabled: true\n',
  });

  it('a policy the latest runs show at its level is not a raise and blocks no one; one they show softer is; one no run evaluated is taken as raised', async () => {
    const { world } = fixture;
    const created = await world.cli('--reconcile', await fixture.repo(lib(block('public', 'hard-mandatory') + block('logging', 'advisory'))));
    assert.equal(created.code, 0, created.stdout + created.stderr);
    for (const [workspace, outcomes] of [['ws-AppProd000001', { public: 'failed' }], ['ws-DataProd00001', { logging: 'failed' }]] as const) {
      const run = await world.control('POST', '/runs', { workspace, outcomes });
      assert.equal(run.status, 200, run.text);
    }
    const dir = await fixture.repo(lib(block('public', 'hard-mandatory') + block('logging', 'soft-mandatory') + block('tags', 'hard-mandatory')));
    const text = await world.cli('--dry-run', dir);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /# evidence \(30 days\): fails in 2 of 4 workspaces in scope \(app-prod, data-prod\); 0 pass; 2 never evaluated them\n {8}# already enforced at hard-mandatory in the latest runs: public\n {8}# old level unknown \(no run in scope evaluated it\), taken as raised: tags\n {8}# by policy \(2 raised policies\):\n {8}# {3}logging \(soft-mandatory\): fails in 1 \(data-prod\); 1 pass; 2 never evaluated it\n {8}# {3}tags \(hard-mandatory\): fails in none; 0 pass; 4 never evaluated it\n {8}# ! would block runs in data-prod\n {4}\}/);

    const json = await world.cli('--dry-run', dir, ['--output', 'json']);
    const document = JSON.parse(json.stdout) as { sources: Array<{ changes: Array<{ name: string; evidence?: unknown }> }> };
    const validate = publishedSchema('plan');
    assert.ok(validate(document), JSON.stringify(validate.errors));
    assert.deepEqual(document.sources[0]!.changes.find((c) => c.name === 'lib')!.evidence, {
      policies: ['logging', 'public', 'tags'], in_scope: 4, evaluated: 2, failing: ['app-prod', 'data-prod'], passing: 0, not_evaluated: 2,
      window: '30 days', partial: false, blocking: ['data-prod'], already_enforced: [{ policy: 'public', level: 'hard-mandatory' }], level_unknown: ['tags'],
      by_policy: [
        { policy: 'logging', level: 'soft-mandatory', failing: ['data-prod'], passing: 1, not_evaluated: 2, blocking: true },
        { policy: 'tags', level: 'hard-mandatory', failing: [], passing: 0, not_evaluated: 4, blocking: false },
      ],
    });
    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.match(markdown.stdout, /- already enforced at hard-mandatory in the latest runs: public\n.*- old level unknown/);
  });
});
