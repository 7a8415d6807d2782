import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeclaredState } from '../src/declared/types.js';
import type { LiveState, RolloutRecord, RolloutSpec } from '../src/model.js';
import type { Evidence, EvidenceRun } from '../src/plan/evidence.js';
import { markerRollout, markerSource, stripMarker, withMarker } from '../src/plan/marker.js';
import { planChanges } from '../src/plan/plan.js';
import { mayPromote, rolloutDigest, withRollouts } from '../src/plan/rollout.js';
import { rolloutLine } from '../src/output/evidence-words.js';
import { declaredPolicy, defaultOptions, livePolicy, NOW } from './helpers/plan-fixtures.js';

const DAY = 86_400_000;
const SPEC: RolloutSpec = { start: 'advisory', cleanRuns: 3, failingWorkspaces: 0, afterMs: 7 * DAY, after: '7d' };
const STARTED = NOW - 8 * DAY;
const policy = declaredPolicy({ name: 's3-encryption', enforcementLevel: 'hard-mandatory', policySets: ['polset-all'], rollout: SPEC });
const record = (state: RolloutRecord['state'], digest = rolloutDigest(policy, SPEC)): RolloutRecord => ({ digest, startedAt: STARTED, state });
const workspaces = ['app-prod', 'data-prod', 'web-dev'].map((name) => ({ id: `ws-${name}`, name, projectId: 'prj-main' }));

function live(level: 'advisory' | 'hard-mandatory', rec: RolloutRecord | null): LiveState {
  return {
    policies: [livePolicy({ name: 's3-encryption', enforcementLevel: level, policySetIds: ['polset-all'], description: withMarker(null, 'main', { rollout: rec }) })],
    pools: [],
    policySets: [{
      id: 'polset-all', name: 'all', kind: 'native', description: null, global: true, overridable: null, agentEnabled: false, policyToolVersion: null, versioned: false,
      vcsBacked: false, parameters: null, workspaceIds: [], projectIds: [], workspaceExclusionIds: [], projectExclusionIds: [], currentVersionId: null, newestVersion: null,
    }],
  };
}

function evidence(runs: Record<string, EvidenceRun[]>, partial = false): Evidence {
  return { window: '30 days', workspaces, runs: { 's3-encryption': Object.fromEntries(Object.entries(runs).map(([ws, r]) => [`ws-${ws}`, r])) }, partial };
}
const pass = (daysAgo: number): EvidenceRun => ({ at: NOW - daysAgo * DAY, outcome: 'passed' });
const fail = (daysAgo: number): EvidenceRun => ({ at: NOW - daysAgo * DAY, outcome: 'failed' });
const declared: DeclaredState = { policies: [policy], pools: [] };
const clean = { 'app-prod': [pass(1), pass(2)], 'data-prod': [pass(1)], 'web-dev': [pass(3)] };

describe('the rollout marker', () => {
  it('records which rollout, when it began and its state, and leaves the source and description as they were', () => {
    const rec = record('held');
    const text = withMarker('Encrypt buckets.', 'main', { rollout: rec });
    assert.deepEqual(markerRollout(text), rec);
    assert.equal(markerSource(text), 'main');
    assert.equal(stripMarker(text), 'Encrypt buckets.');
    assert.equal(markerRollout(withMarker('x', 'main')), null);
  });
});

describe('a rollout decides the level each pass applies', () => {
  const cases: Array<{ name: string; live: LiveState; evidence: Evidence | null; level: string; state: string | null; recorded: RolloutRecord['state'] }> = [
    { name: 'a new rollout starts at its start level', live: live('advisory', null), evidence: null, level: 'advisory', state: 'starting', recorded: 'held' },
    { name: 'held while too few runs are clean', live: live('advisory', record('held')), evidence: evidence({ 'app-prod': [pass(1)], 'data-prod': [pass(1)] }), level: 'advisory', state: 'held', recorded: 'held' },
    { name: 'held while a workspace fails', live: live('advisory', record('held')), evidence: evidence({ ...clean, 'web-dev': [fail(1)] }), level: 'advisory', state: 'held', recorded: 'held' },
    { name: 'promoted once every condition holds', live: live('advisory', record('held')), evidence: evidence(clean), level: 'hard-mandatory', state: 'promoted', recorded: 'promoted' },
    { name: 'held on partial evidence', live: live('advisory', record('held')), evidence: evidence(clean, true), level: 'advisory', state: 'held', recorded: 'held' },
    { name: 'held when no evidence was read', live: live('advisory', record('held')), evidence: null, level: 'advisory', state: 'held', recorded: 'held' },
    {
      name: 'held when a workspace\'s latest run errored', live: live('advisory', record('held')),
      evidence: evidence({ ...clean, 'web-dev': [{ at: NOW - DAY, outcome: 'errored' }] }), level: 'advisory', state: 'held', recorded: 'held',
    },
    { name: 'a promoted rollout stays at its level', live: live('hard-mandatory', record('promoted')), evidence: null, level: 'hard-mandatory', state: null, recorded: 'promoted' },
    { name: 'a changed rollout (or code, or level) starts again', live: live('hard-mandatory', record('promoted', '0123456789abcdef')), evidence: null, level: 'advisory', state: 'starting', recorded: 'held' },
    { name: 'a policy already at its level before the rollout is promoted at once', live: live('hard-mandatory', null), evidence: null, level: 'hard-mandatory', state: null, recorded: 'promoted' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const result = withRollouts(declared, c.live, c.evidence, NOW);
      const decided = result.declared.policies[0]!;
      assert.equal(decided.enforcementLevel, c.level);
      assert.equal(decided.rolloutRecord?.state, c.recorded);
      assert.equal(result.rollouts[0]?.state ?? null, c.state);
    });
  }

  it('runs before the rollout began are not clean runs', () => {
    const result = withRollouts(declared, live('advisory', record('held')), evidence({ 'app-prod': [pass(1), pass(9), pass(10)], 'data-prod': [pass(1)] }), NOW);
    assert.equal(result.rollouts[0]!.cleanRuns, 2);
  });

  it('clean runs count once per workspace: five in one workspace never vouch for those that never evaluated it', () => {
    const result = withRollouts(declared, live('advisory', record('held')), evidence({ 'app-prod': [pass(1), pass(2), pass(3), pass(4), pass(5)] }), NOW);
    const status = result.rollouts[0]!;
    assert.deepEqual([status.state, status.cleanRuns, status.inScope, status.evaluated, status.notEvaluated], ['held', 1, 3, 1, 2]);
  });

  it('a passing speculative or destroy run is never clean, and never hides a failing apply', () => {
    const plan = (daysAgo: number): EvidenceRun => ({ ...pass(daysAgo), applies: false });
    const destroy = (daysAgo: number): EvidenceRun => ({ ...pass(daysAgo), destroy: true });
    const result = withRollouts(declared, live('advisory', record('held')), evidence({
      'app-prod': [pass(2), plan(1)], 'data-prod': [fail(2), plan(1)], 'web-dev': [plan(1), destroy(1)],
    }), NOW);
    const status = result.rollouts[0]!;
    assert.deepEqual([status.state, status.cleanRuns, status.failing, status.evaluated], ['held', 1, ['data-prod'], 2]);
    const cleanAgain = withRollouts(declared, live('advisory', record('held')), evidence({ ...clean, 'web-dev': [pass(3), fail(1)] }), NOW).rollouts[0]!;
    assert.deepEqual([cleanAgain.state, cleanAgain.failing], ['held', ['web-dev']]);
  });

  it('held when a workspace\'s latest run could not say: canceled, unreachable or a check with only counts', () => {
    for (const outcome of ['canceled', 'unreachable', 'counts-only'] as const) {
      const result = withRollouts(declared, live('advisory', record('held')), evidence({ ...clean, 'web-dev': [pass(3), { at: NOW - DAY, outcome }] }), NOW);
      assert.deepEqual([result.rollouts[0]!.state, result.rollouts[0]!.errored], ['held', ['web-dev']], outcome);
    }
  });

  it('not before its after: the same evidence a day after it began holds it', () => {
    const young = { ...record('held'), startedAt: NOW - DAY };
    const result = withRollouts(declared, live('advisory', young), evidence({ 'app-prod': [pass(0.5), pass(0.2)], 'data-prod': [pass(0.1)], 'web-dev': [pass(0.3)] }), NOW);
    assert.equal(result.rollouts[0]!.state, 'held');
    assert.match(rolloutLine(result.rollouts[0]!), /^policy "s3-encryption": held at advisory by its rollout: 3 of 3 clean runs; not before 2026-03-07T12:00Z$/);
  });
});

describe('each promotion guard', () => {
  const ok = { cleanRuns: 3, failing: [] as string[], errored: [] as string[], partial: false };
  const rec = record('held');
  const cases: Array<[string, Partial<typeof ok> & { failing?: string[]; errored?: string[] }, number, boolean]> = [
    ['every condition holds', {}, NOW, true],
    ['partial evidence', { partial: true }, NOW, false],
    ['an errored workspace', { errored: ['web-dev'] }, NOW, false],
    ['one clean run too few', { cleanRuns: 2 }, NOW, false],
    ['one failing workspace too many', { failing: ['app-prod'] }, NOW, false],
    ['a moment before its after', {}, STARTED + SPEC.afterMs - 1, false],
    ['exactly its after', {}, STARTED + SPEC.afterMs, true],
  ];
  for (const [name, progress, now, promotes] of cases) {
    it(`${name}: ${promotes ? 'promotes' : 'holds'}`, () => assert.equal(mayPromote(SPEC, rec, { ...ok, ...progress }, now), promotes));
  }
  it('failing-workspaces is a bound, not a ban', () => assert.equal(mayPromote({ ...SPEC, failingWorkspaces: 1 }, rec, { ...ok, failing: ['app-prod'] }, NOW), true));
});

describe('the plan of a rollout', () => {
  it('a held policy is updated only where its marker must record the rollout; a promotion is an update of its level', () => {
    const started = withRollouts(declared, live('advisory', null), null, NOW);
    const plan = planChanges(started.declared, live('advisory', null), defaultOptions());
    assert.deepEqual(Object.keys(plan.changes[0]!.fields), ['rollout']);
    const promoted = withRollouts(declared, live('advisory', record('held')), evidence(clean), NOW);
    const promotion = planChanges(promoted.declared, live('advisory', record('held')), defaultOptions());
    assert.deepEqual(promotion.changes[0]!.fields['enforcement-level'], { before: 'advisory', after: 'hard-mandatory' });
    assert.deepEqual(promotion.changes[0]!.fields['rollout'], { before: 'held since 2026-02-21T12:00:00Z', after: 'promoted (began 2026-02-21T12:00:00Z)' });
  });

  it('a lowered level applies at once: the rollout starts again at its start level, below the live level', () => {
    const lowered = { ...policy, enforcementLevel: 'soft-mandatory' as const };
    const result = withRollouts({ policies: [lowered], pools: [] }, live('hard-mandatory', record('promoted')), null, NOW);
    const plan = planChanges(result.declared, live('hard-mandatory', record('promoted')), defaultOptions());
    assert.deepEqual(plan.changes[0]!.fields['enforcement-level'], { before: 'hard-mandatory', after: 'advisory' });
  });
});
