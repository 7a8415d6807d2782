/**
 * Evidence before enforcement, read by the real client from the emulator on a loopback port: runs added through the
 * control endpoint follow a table against the sets that apply to the workspace (global, workspaces, projects,
 * exclusions) at the levels the policies have then; the shapes read back whole; lists read over every page and no
 * further than the window; the request budget ends in a partial readout; unreachable and errored evaluations are
 * reported as such; the cache spares every outcome request of a finished run; ids of the wrong shape are refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createRunCache } from '../src/api/evidence-cache.js';
import { readEvidence } from '../src/api/evidence.js';
import type { PolicyEvidence, ReadPolicyRun } from '../src/api/evidence-types.js';
import { ApiError } from '../src/errors.js';
import type { Seed } from '../src/emulator/index.js';
import { startApiFixture, TOKEN, type ApiFixture } from './helpers/api-fixture.js';

const ORG = 'acme';
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const at = (daysAgo: number): string => new Date(NOW - daysAgo * DAY).toISOString();

function seed(): Seed {
  return {
    token: TOKEN,
    rateLimit: 0,
    organizations: [{
      name: ORG,
      workspaces: [
        { id: 'ws-alpha', name: 'alpha', project: 'prj-web' },
        { id: 'ws-beta', name: 'beta' },
        { id: 'ws-gamma', name: 'gamma' },
        { id: 'ws-many', name: 'many' },
      ],
      projects: [{ id: 'prj-web', name: 'web' }],
      policySets: [
        // Agent-enabled: the Sentinel sets report through policy evaluations here (policy checks: api-policy-checks.test.ts).
        { id: 'polset-base', name: 'base', global: true, agentEnabled: true },
        { id: 'polset-proj', name: 'proj', kind: 'opa', projects: ['prj-web'] },
        { id: 'polset-beta', name: 'beta-only', workspaces: ['ws-beta'], agentEnabled: true },
      ],
      // 230 runs, one a day: three pages of 100, the window reaching back 30 days needs only the first.
      runs: Array.from({ length: 230 }, (_, i) => ({
        workspace: 'ws-many', createdAt: at(i + 0.5), outcomes: [{ policy: 'deny-public', set: 'base', status: i % 2 === 0 ? 'passed' as const : 'failed' as const }],
      })),
    }],
  };
}

async function addRun(f: ApiFixture, body: Record<string, unknown>): Promise<{ id: string; 'policy-evaluations': Array<{ id: string; status: string }> }> {
  const response = await f.emulator.control('POST', '/runs', body);
  assert.equal(response.status, 200, response.text);
  return response.json as { id: string; 'policy-evaluations': Array<{ id: string; status: string }> };
}

/** How many of `runs` were created at or after `since` with `outcome`. */
function countRuns(runs: readonly ReadPolicyRun[], since: string, outcome = 'passed'): number {
  return runs.filter((run) => run.outcome === outcome && Date.parse(run.createdAt) >= Date.parse(since)).length;
}

function workspace(evidence: PolicyEvidence | undefined, id: string): NonNullable<PolicyEvidence>['workspaces'][number] {
  const found = evidence?.workspaces.find((ws) => ws.workspaceId === id);
  assert.ok(found, `no evidence for ${id}`);
  return found;
}

describe('the client reads runs, task stages, policy evaluations and policy-set outcomes', () => {
  let f: ApiFixture;
  before(async () => {
    f = await startApiFixture(seed(), {}, () => NOW);
    await f.client.createPolicy(ORG, { name: 'deny-public', kind: 'native', description: null, enforcementLevel: 'hard-mandatory', query: null, policySetIds: ['polset-base'] });
    await f.client.createPolicy(ORG, { name: 'cost-cap', kind: 'native', description: 'caps cost', enforcementLevel: 'advisory', query: null, policySetIds: ['polset-beta'] });
    await f.client.createPolicy(ORG, { name: 'tags', kind: 'opa', description: null, enforcementLevel: 'mandatory', query: 'data.tags.deny', policySetIds: ['polset-proj'] });
    await f.client.addToPolicySet('polset-base', 'workspace-exclusions', ['ws-gamma']);
  });
  after(() => f.close());

  it('answers a table run for the sets that apply, each policy at its level, and reads it back whole', async () => {
    const added = await addRun(f, { workspace: 'ws-alpha', outcomes: { 'deny-public': 'failed' }, 'created-at': at(1), print: { tags: ['3 resources checked'] } });
    const [run] = await f.client.runs.listWorkspaceRuns('ws-alpha', { includeTaskStages: true });
    assert.equal(run?.id, added.id);
    assert.deepEqual([run?.status, run?.createdAt, run?.workspaceId], ['applied', at(1), 'ws-alpha']);
    assert.deepEqual(run?.taskStages?.map((stage) => [stage.stage, stage.policyEvaluationIds?.length]), [['pre_plan', 0], ['post_plan', 2]]);
    const stages = await f.client.runs.listTaskStages(added.id);
    assert.deepEqual(stages, run?.taskStages);
    const evaluations = await f.client.runs.listPolicyEvaluations(stages[1]?.id ?? '');
    assert.deepEqual(evaluations.map((e) => [e.status, e.policyKind, e.resultCount]), [
      ['failed', 'native', { advisoryFailed: 0, mandatoryFailed: 1, passed: 0, errored: 0 }],
      ['passed', 'opa', { advisoryFailed: 0, mandatoryFailed: 0, passed: 1, errored: 0 }],
    ]);
    const [base] = await f.client.runs.listPolicySetOutcomes(evaluations[0]?.id ?? '');
    assert.deepEqual([base?.policySetName, base?.error, base?.outcomes], ['base', null, [{ policyName: 'deny-public', enforcementLevel: 'hard-mandatory', status: 'failed', description: null, prints: [] }]]);
    const [proj] = await f.client.runs.listPolicySetOutcomes(evaluations[1]?.id ?? '');
    assert.deepEqual(proj?.outcomes.map((o) => [o.policyName, o.enforcementLevel, o.status, o.prints]), [['tags', 'mandatory', 'passed', ['3 resources checked']]]);
    assert.deepEqual(await f.client.runs.getPolicySetOutcome(proj?.id ?? ''), proj);
  });

  it('filters set outcomes by status and level as go-tfe asks, leaving out sets with no entry that matches', async () => {
    const added = await addRun(f, { workspace: 'ws-beta', outcomes: { 'cost-cap': 'failed' }, 'created-at': at(2) });
    const evaluation = added['policy-evaluations'][0]?.id ?? '';
    const sets = await f.client.runs.listPolicySetOutcomes(evaluation);
    assert.deepEqual(sets.map((set) => [set.policySetName, set.outcomes.map((o) => `${o.policyName}:${o.status}:${o.enforcementLevel}`)]), [
      ['base', ['deny-public:passed:hard-mandatory']], ['beta-only', ['cost-cap:failed:advisory']],
    ]);
    const failedAdvisory = await f.client.runs.listPolicySetOutcomes(evaluation, { filters: [{ status: 'errored' }, { status: 'failed', enforcementLevel: 'advisory' }] });
    assert.deepEqual(failedAdvisory.map((set) => [set.policySetName, set.outcomes.length]), [['beta-only', 1]]);
    assert.deepEqual(await f.client.runs.listPolicySetOutcomes(evaluation, { filters: [{ status: 'failed', enforcementLevel: 'mandatory' }] }), []);
  });

  it('refuses a table naming a policy no applying set holds: an exclusion wins over a global set', async () => {
    const response = await f.emulator.control('POST', '/runs', { workspace: 'ws-gamma', outcomes: { 'deny-public': 'failed' } });
    assert.equal(response.status, 400);
    assert.equal((response.json as { errors: Array<{ detail: string }> }).errors[0]?.detail, 'no policy set that applies to workspace ws-gamma holds "deny-public"');
  });

  it('reads the evidence of each policy per workspace, unreachable, errored and running runs said as such', async () => {
    await addRun(f, { workspace: 'ws-beta', evaluation: 'unreachable', 'created-at': at(1) });
    await addRun(f, { workspace: 'ws-alpha', evaluation: 'errored', 'created-at': at(1.5) });
    await addRun(f, { workspace: 'ws-gamma', 'created-at': at(3) });
    const running = await addRun(f, { workspace: 'ws-alpha', status: 'post_plan_running', 'created-at': at(0.5) });
    const readout = await readEvidence(f.client.runs, {
      organization: ORG, workspaces: [{ id: 'ws-alpha', name: 'alpha' }, { id: 'ws-beta', name: 'beta' }, { id: 'ws-gamma', name: 'gamma' }],
      policies: ['deny-public', 'cost-cap'], now: () => NOW,
    });
    assert.equal(readout.partial, false);
    const deny = readout.policies[0];
    assert.deepEqual(workspace(deny, 'ws-alpha').latest, {
      runId: workspace(deny, 'ws-alpha').runs[0]?.runId, createdAt: at(1), finished: true, outcome: 'failed', enforcementLevel: 'hard-mandatory', policySets: ['base'],
      kind: { planOnly: false, refreshOnly: false, isDestroy: false, source: 'tfe-api', triggerReason: 'manual' },
    });
    assert.deepEqual(workspace(deny, 'ws-beta').runs.map((run) => run.outcome), ['unreachable', 'passed']);
    assert.deepEqual(workspace(deny, 'ws-alpha').runs.map((run) => [run.outcome, run.enforcementLevel]), [['failed', 'hard-mandatory'], ['errored', null]]);
    assert.deepEqual([workspace(deny, 'ws-gamma').latest, workspace(deny, 'ws-gamma').complete], [null, true]);
    assert.equal(countRuns(workspace(readout.policies[1], 'ws-beta').runs, at(5), 'failed'), 1);
    const alpha = readout.workspaces.find((ws) => ws.workspaceId === 'ws-alpha');
    assert.deepEqual([alpha?.runsInWindow, alpha?.runsRead], [3, 3]);
    assert.ok(!workspace(deny, 'ws-alpha').runs.some((run) => run.runId === running.id), 'a running run has no outcome yet');
  });
});

describe('reading evidence: pages, window, budget, cache and ids', () => {
  let f: ApiFixture;
  before(async () => (f = await startApiFixture(seed(), {}, () => NOW)));
  after(() => f.close());
  const many = [{ id: 'ws-many', name: 'many' }];

  it('lists every page of a workspace\'s runs, and no page past the window', async () => {
    await f.emulator.clearRequests();
    assert.equal((await f.client.runs.listWorkspaceRuns('ws-many')).length, 230);
    assert.equal((await f.emulator.requests()).length, 3);
    await f.emulator.clearRequests();
    const recent = await f.client.runs.listWorkspaceRuns('ws-many', { since: NOW - 30 * DAY });
    assert.equal(recent.length, 30);
    assert.equal((await f.emulator.requests()).length, 1);
  });

  it('stops at the budget with a partial readout, newest runs of each workspace first', async () => {
    await f.emulator.clearRequests();
    const readout = await readEvidence(f.client.runs, { organization: ORG, workspaces: many, policies: ['deny-public'], now: () => NOW, budget: 11 });
    assert.equal(readout.partial, true);
    assert.equal(readout.requests, 11);
    assert.equal((await f.emulator.requests()).length, 11);
    const runs = readout.policies[0]?.workspaces[0]?.runs ?? [];
    // One request lists the runs; each finished run then costs one, for the set outcomes of the evaluation its stage names.
    assert.deepEqual([runs.length, runs[0]?.createdAt, runs[9]?.createdAt, readout.workspaces[0]?.complete], [10, at(0.5), at(9.5), false]);
  });

  it('sends no list past the budget either: a workspace not listed is said so', async () => {
    await f.emulator.clearRequests();
    const workspaces = [...many, { id: 'ws-alpha', name: 'alpha' }];
    const readout = await readEvidence(f.client.runs, { organization: ORG, workspaces, policies: ['deny-public'], now: () => NOW, budget: 1, listing: 'workspace' });
    assert.deepEqual([readout.partial, readout.requests, (await f.emulator.requests()).length], [true, 1, 1]);
    assert.deepEqual(readout.workspaces.map((ws) => ws.runsInWindow === null).sort(), [false, true]);
  });

  it('reads a finished run once: a second read with the cache sends no outcome request', async () => {
    const cache = createRunCache();
    const workspaces = [...many, { id: 'ws-alpha', name: 'alpha' }];
    const options = { organization: ORG, workspaces, policies: ['deny-public'], now: () => NOW, cache, budget: 1000 };
    const cold = await readEvidence(f.client.runs, options);
    // The organization's list, alpha's own list (the organization's gave it no run), one request per run.
    assert.deepEqual([cold.partial, cold.requests, cold.cachedRuns, cache.size], [false, 2 + 30, 0, 30]);
    await f.emulator.clearRequests();
    const warm = await readEvidence(f.client.runs, options);
    assert.deepEqual([warm.partial, warm.requests, warm.cachedRuns], [false, 2, 30]);
    assert.deepEqual((await f.emulator.requests()).map((request) => request.path.split('?')[0]), ['/organizations/acme/runs', '/workspaces/ws-alpha/runs']);
    assert.deepEqual(warm.policies, cold.policies);
    assert.equal(countRuns(warm.policies[0]?.workspaces[0]?.runs ?? [], at(10)), 5);
  });

  it('refuses an id of the wrong shape, before a request or in an answer', async () => {
    await f.emulator.clearRequests();
    await assert.rejects(f.client.runs.listTaskStages('../organizations'), /is not a run id/);
    await assert.rejects(f.client.runs.listPolicySetOutcomes('ts-abc'), /is not a policy-evaluation id/);
    assert.equal((await f.emulator.requests()).length, 0);
    await f.emulator.addFaults({ kind: 'malformed', path: '^/organizations/acme/runs$', body: '{"data":[{"id":"run-x/../../admin","type":"runs","attributes":{}}]}' });
    await assert.rejects(readEvidence(f.client.runs, { organization: ORG, workspaces: many, policies: [], now: () => NOW }), (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.match(error.message, /unusable: "run-x\/\.\.\/\.\.\/admin" is not a run id/);
      return true;
    });
  });
});
