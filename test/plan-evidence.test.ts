import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeclaredPolicySet, DeclaredState } from '../src/declared/types.js';
import type { LivePolicySet, LiveState } from '../src/model.js';
import { changeEvidence, type Evidence } from '../src/plan/evidence.js';
import { planChanges } from '../src/plan/plan.js';
import { inScope, tightenings, withEvidence } from '../src/plan/tightening.js';
import { blockingLine, evidenceLine } from '../src/output/evidence-words.js';
import { declaredPolicy, defaultOptions, livePolicy, NOW } from './helpers/plan-fixtures.js';

const names = ['app-prod', 'data-prod', 'web-dev', 'web-prod', 'ops', 'a1', 'a2', 'a3'];
const workspaces = names.map((name, i) => ({ id: `ws-${name}`, name, projectId: i < 4 ? 'prj-prod' : 'prj-other' }));

function liveSet(p: Partial<LivePolicySet> & { id: string; name: string }): LivePolicySet {
  return {
    kind: 'native', description: null, global: false, overridable: null, agentEnabled: false, policyToolVersion: null, versioned: false, vcsBacked: false,
    parameters: null, workspaceIds: [], projectIds: [], workspaceExclusionIds: [], projectExclusionIds: [], currentVersionId: null, newestVersion: null, ...p,
  };
}
function yamlSet(p: Partial<DeclaredPolicySet> & { name: string }): DeclaredPolicySet {
  return {
    kind: 'native', settingsFile: null, description: null, global: false, overridable: null, agentEnabled: null, policyToolVersion: null,
    scope: { workspaces: null, projects: null, workspaceExclusions: null, projectExclusions: null }, parameters: null, sensitiveDigest: null, content: null, ...p,
  };
}

const prodSet = liveSet({ id: 'polset-prod', name: 'prod', projectIds: ['prj-prod'], workspaceExclusionIds: ['ws-web-prod'] });

describe('which changes tighten enforcement', () => {
  const base = (level: 'advisory' | 'soft-mandatory' | 'hard-mandatory', sets: string[] | null = null) =>
    declaredPolicy({ name: 's3', enforcementLevel: level, policySets: sets });
  const liveState = (level: 'advisory' | 'hard-mandatory', sets: string[] = ['polset-prod'], extra: LivePolicySet[] = []): LiveState => ({
    policies: [livePolicy({ name: 's3', enforcementLevel: level, policySetIds: sets, description: '<!-- managed-by: policy-pool-sync source=main -->' })],
    pools: [], policySets: [prodSet, ...extra],
  });
  const cases: Array<[string, DeclaredState, LiveState, string[]]> = [
    ['a level that rises', { policies: [base('hard-mandatory')], pools: [] }, liveState('advisory'), ['policy s3']],
    ['a level that falls does not', { policies: [base('advisory')], pools: [] }, liveState('hard-mandatory'), []],
    ['a policy that joins a set', { policies: [base('advisory', ['polset-prod', 'polset-all'])], pools: [] }, liveState('advisory', ['polset-prod'], [liveSet({ id: 'polset-all', name: 'all', global: true })]), ['policy s3']],
    ['a policy that leaves a set does not', { policies: [base('advisory', [])], pools: [] }, liveState('advisory'), []],
    [
      'a set whose scope widens', { policies: [base('advisory')], pools: [], policySets: [yamlSet({ name: 'prod', scope: { workspaces: null, projects: ['prj-prod', 'prj-other'], workspaceExclusions: null, projectExclusions: null } })] },
      liveState('advisory'), ['policy-set prod'],
    ],
    [
      'a set whose exclusions are removed', { policies: [base('advisory')], pools: [], policySets: [yamlSet({ name: 'prod', scope: { workspaces: null, projects: ['prj-prod'], workspaceExclusions: [], projectExclusions: null } })] },
      liveState('advisory'), ['policy-set prod'],
    ],
    ['a set that is created, with a member', { policies: [base('advisory', ['new'])], pools: [], policySets: [yamlSet({ name: 'new', global: true })] }, { policies: [], pools: [], policySets: [] }, ['policy-set new', 'policy s3']],
  ];
  for (const [name, declared, live, expected] of cases) {
    it(name, () => {
      const plan = planChanges(declared, live, defaultOptions());
      assert.deepEqual(tightenings(plan.changes, declared, live).map((t) => `${t.resource} ${t.name}`).sort(), expected.sort());
    });
  }

  it('a versioned set\'s new content tightens the policies it holds at a level that blocks', () => {
    const content = {
      folder: 'fsbp', root: '/repo', configFile: 'sentinel.hcl', digest: 'b'.repeat(64), bytes: 10, files: [], policies: 2, modules: 0,
      levels: [{ name: 'ecr-scan', level: 'hard-mandatory' }, { name: 'ecr-tags', level: 'advisory' }],
    };
    const declared: DeclaredState = { policies: [], pools: [], policySets: [yamlSet({ name: 'fsbp', content, scope: { workspaces: null, projects: ['prj-prod'], workspaceExclusions: null, projectExclusions: null } })] };
    const live: LiveState = { policies: [], pools: [], policySets: [liveSet({ id: 'polset-fsbp', name: 'fsbp', versioned: true, projectIds: ['prj-prod'], description: `<!-- managed-by: policy-pool-sync source=main content=sha256:${'a'.repeat(64)} version=polsetver-1 -->` })] };
    const plan = planChanges(declared, live, defaultOptions());
    assert.deepEqual(tightenings(plan.changes, declared, live).map((t) => t.policies), [[{ name: 'ecr-scan', level: 'hard-mandatory', levelBefore: 'unknown' }]]);
  });

  it('scope: a project\'s workspaces, less the excluded, or every workspace of a global set', () => {
    const scope = { global: false, workspaceIds: ['ws-ops'], projectIds: ['prj-prod'], workspaceExclusionIds: ['ws-web-prod'], projectExclusionIds: [] };
    assert.deepEqual(inScope([scope], workspaces), ['ws-app-prod', 'ws-data-prod', 'ws-ops', 'ws-web-dev']);
    assert.equal(inScope([{ ...scope, global: true }], workspaces).length, 7);
  });
});

describe('what the evidence of a change says', () => {
  const at = (outcome: 'passed' | 'failed' | 'errored', hours: number) => ({ at: NOW - hours * 3_600_000, outcome });
  const evidence: Evidence = {
    window: '30 days', workspaces, partial: false,
    runs: { s3: { 'ws-app-prod': [at('failed', 1), at('passed', 5)], 'ws-data-prod': [at('passed', 9), at('failed', 2)], 'ws-web-dev': [at('passed', 3), at('errored', 1)], 'ws-ops': [at('errored', 1)] } },
  };
  const all = workspaces.map((w) => w.id);

  it('counts by each workspace\'s latest evaluated run, names the failing, and marks a mandatory level as blocking', () => {
    const e = changeEvidence(evidence, [{ name: 's3', level: 'hard-mandatory' }], all);
    assert.deepEqual({ ...e }, { policies: ['s3'], in_scope: 8, evaluated: 3, failing: ['app-prod', 'data-prod'], passing: 1, not_evaluated: 5, window: '30 days', partial: false, blocking: ['app-prod', 'data-prod'], unsaid: ['ops', 'web-dev'] });
    assert.equal(evidenceLine(e), 'evidence (30 days): fails in 2 of 8 workspaces in scope (app-prod, data-prod); 1 pass; 5 never evaluated it');
    assert.equal(blockingLine(e), 'would block runs in app-prod, data-prod');
  });

  it('a versioned set\'s policy is already enforced only when every latest run in scope shows its level or a stricter one', () => {
    const shown = (levels: Array<[string, string]>): Evidence => ({
      ...evidence, runs: { lib: Object.fromEntries(levels.map(([id, level], i) => [id, [{ at: NOW - i, outcome: 'failed' as const, level }]])) },
    });
    const lib = [{ name: 'lib', level: 'soft-mandatory' as const, levelBefore: 'unknown' as const }];
    const stricter = changeEvidence(shown([['ws-app-prod', 'hard-mandatory'], ['ws-data-prod', 'soft-mandatory']]), lib, all);
    assert.deepEqual([stricter.already_enforced, stricter.level_unknown, stricter.blocking], [[{ policy: 'lib', level: 'soft-mandatory' }], undefined, []]);
    const mixed = changeEvidence(shown([['ws-app-prod', 'hard-mandatory'], ['ws-data-prod', 'advisory']]), lib, all);
    assert.deepEqual([mixed.already_enforced, mixed.level_unknown, mixed.blocking], [undefined, undefined, ['app-prod', 'data-prod']]);
    const unknownWord = changeEvidence(shown([['ws-app-prod', 'strict-ish']]), lib, all);
    assert.deepEqual([unknownWord.already_enforced, unknownWord.blocking], [undefined, ['app-prod']], 'a level word not known is no proof');
  });

  it('an advisory level blocks nothing', () => {
    assert.deepEqual(changeEvidence(evidence, [{ name: 's3', level: 'advisory' }], all).blocking, []);
  });

  it('names the first five, then a count', () => {
    const many = { ...evidence, runs: { s3: Object.fromEntries(all.map((id) => [id, [at('failed', 1)]])) } };
    const e = changeEvidence(many, [{ name: 's3', level: 'soft-mandatory' }], all);
    assert.equal(evidenceLine(e), 'evidence (30 days): fails in 8 of 8 workspaces in scope (a1, a2, a3, app-prod, data-prod and 3 more); 0 pass');
  });

  it('a policy not yet evaluated anywhere says so, and partial evidence says it is partial', () => {
    const e = changeEvidence({ ...evidence, partial: true }, [{ name: 'new-policy', level: 'mandatory' }], all);
    assert.equal(evidenceLine(e), 'evidence (30 days): not yet evaluated in any of the 8 workspaces in scope; partial: the read stopped before it read every run (evidence.max-requests, evidence.max-seconds, or 48 MiB of answers)');
    assert.equal(blockingLine(e), null);
  });

  it('is carried by the tightening change of a plan, and by no other', () => {
    const declared: DeclaredState = { policies: [declaredPolicy({ name: 's3', enforcementLevel: 'hard-mandatory' }), declaredPolicy({ name: 'other', description: 'new words' })], pools: [] };
    const live: LiveState = {
      policies: [livePolicy({ name: 's3', policySetIds: ['polset-prod'] }), livePolicy({ name: 'other', policySetIds: ['polset-prod'] })],
      pools: [], policySets: [prodSet],
    };
    const planned = planChanges(declared, live, defaultOptions());
    const plan = withEvidence(planned, tightenings(planned.changes, declared, live), evidence);
    const s3 = plan.changes.find((c) => c.name === 's3')!;
    assert.deepEqual(s3.evidence?.failing, ['app-prod', 'data-prod']);
    assert.equal(s3.evidence?.in_scope, 3);
    assert.equal(plan.changes.find((c) => c.name === 'other')!.evidence, undefined);
  });
});
