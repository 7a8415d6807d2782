/**
 * Policy checks and the kinds of run, as the real client reads them from the emulator: a Sentinel set that is not
 * agent-enabled reports through the run's policy check (its `sentinel` detail per policy, or only its counts); a run
 * says whether it is plan-only, a destroy or refresh-only, its source and trigger; the workspace's run list leaves out
 * plan-only runs unless asked, and the client asks; a list that ignores `include=task_stages` is read stage by stage;
 * an errored entry naming no policy is an error of its set; runs are read newest first whatever order the list sends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readEvidence } from '../src/api/evidence.js';
import { parsePolicyCheck, parsePolicySetOutcome } from '../src/api/run-resources.js';
import type { Seed } from '../src/emulator/index.js';
import { startApiFixture, TOKEN, type ApiFixture } from './helpers/api-fixture.js';

const ORG = 'acme';
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const at = (hoursAgo: number): string => new Date(NOW - hoursAgo * 3_600_000).toISOString();

function seed(): Seed {
  return {
    token: TOKEN,
    rateLimit: 0,
    organizations: [{
      name: ORG,
      workspaces: [{ id: 'ws-one', name: 'one' }, { id: 'ws-two', name: 'two' }],
      policySets: [{ id: 'polset-base', name: 'base', global: true }, { id: 'polset-agents', name: 'agents', global: true, agentEnabled: true }],
      runs: [
        {
          workspace: 'ws-one', createdAt: at(3), outcomes: [
            { policy: 'deny-public', set: 'base', status: 'failed', level: 'soft-mandatory' },
            { policy: 'cost', set: 'base', status: 'failed', level: 'advisory' },
            { policy: 'tags', set: 'agents', status: 'passed' },
          ],
        },
        { workspace: 'ws-one', createdAt: at(2), planOnly: true, status: 'planned_and_finished', source: 'tfe-configuration-version', outcomes: [{ policy: 'deny-public', set: 'base', status: 'passed' }] },
        { workspace: 'ws-one', createdAt: at(1), isDestroy: true, checkDetail: false, outcomes: [{ policy: 'deny-public', set: 'base', status: 'failed' }] },
        { workspace: 'ws-two', createdAt: at(1), check: 'errored' },
        { workspace: 'ws-two', createdAt: at(0.5), stage: 'errored' },
      ],
    }],
  };
}

describe('policy checks and kinds of run', () => {
  let f: ApiFixture;
  before(async () => (f = await startApiFixture(seed(), {}, () => NOW)));
  after(() => f.close());

  it('reads a run\'s policy check: its counts and each policy\'s result from the sentinel detail', async () => {
    const runs = await f.client.runs.listWorkspaceRuns('ws-one', { includeTaskStages: true });
    assert.deepEqual(runs.map((run) => [run.createdAt, run.planOnly, run.isDestroy, run.source]), [
      [at(1), false, true, 'tfe-api'], [at(2), true, false, 'tfe-configuration-version'], [at(3), false, false, 'tfe-api'],
    ], 'plan-only runs too, newest first');
    const oldest = runs[2]!;
    assert.equal(oldest.policyCheckIds?.length, 1);
    const [check] = await f.client.runs.listPolicyChecks(oldest.id);
    assert.deepEqual(check?.status, 'soft_failed');
    assert.deepEqual(check?.counts, { passed: 0, totalFailed: 2, hardFailed: 0, softFailed: 1, advisoryFailed: 1 });
    assert.deepEqual(check?.policies, [
      { policySet: 'base', policy: 'deny-public', passed: false, allowedFailure: false, error: null },
      { policySet: 'base', policy: 'cost', passed: false, allowedFailure: true, error: null },
    ]);
    const [counted] = await f.client.runs.listPolicyChecks(runs[0]!.id);
    assert.deepEqual([counted?.status, counted?.policies, counted?.counts?.totalFailed], ['hard_failed', null, 1]);
    const output = await f.emulator.call('GET', `/policy-checks/${check?.id}/output`);
    assert.match(output.text, /Fail - deny-public\.sentinel \(soft-mandatory\)/);
  });

  it('reads the sentinel detail leniently: underscores, a name without its set, another shape as counts only', () => {
    const resource = (sentinel: unknown) => ({ id: 'polchk-x', type: 'policy-checks', attributes: { status: 'passed', result: { passed: 1, total_failed: 0, sentinel } } });
    assert.deepEqual(parsePolicyCheck(resource({ data: { s: { policies: [{ policy: 'p.sentinel', result: true, allowed_failure: true, error: '' }] } } })).policies, [
      { policySet: 's', policy: 'p', passed: true, allowedFailure: true, error: null },
    ]);
    assert.equal(parsePolicyCheck(resource({ data: { s: { rules: [] } } })).policies, null);
    assert.equal(parsePolicyCheck(resource(undefined)).counts?.passed, 1);
  });

  it('takes an errored entry naming no policy for an error of its set', () => {
    const set = parsePolicySetOutcome({ id: 'psout-x', attributes: { 'policy-set-name': 's', error: '', outcomes: [{ policy_name: null, status: 'errored', description: 'the set failed to load' }] } });
    assert.deepEqual([set.error, set.outcomes], ['the set failed to load', []]);
  });

  it('the evidence of a checked policy: a failure without detail is counts only, an errored check says so, a speculative pass is marked', async () => {
    const readout = await readEvidence(f.client.runs, {
      organization: ORG, workspaces: [{ id: 'ws-one', name: 'one' }, { id: 'ws-two', name: 'two' }], now: () => NOW,
      policies: [{ name: 'deny-public', kind: 'native', via: 'check' }, { name: 'tags', kind: 'native', via: 'evaluation' }],
    });
    const [deny, tags] = readout.policies;
    assert.deepEqual(deny?.workspaces[0]?.runs.map((run) => [run.outcome, run.kind.planOnly, run.kind.isDestroy]), [
      ['counts-only', false, true], ['passed', true, false], ['failed', false, false],
    ]);
    assert.deepEqual(deny?.workspaces[1]?.runs.map((run) => run.outcome), ['errored'], 'an errored check; a stage says nothing of a checked policy');
    assert.deepEqual(tags?.workspaces[0]?.runs.map((run) => run.outcome), ['passed'], 'an evaluated policy is read from its evaluation only');
    assert.deepEqual(tags?.workspaces[1]?.runs.map((run) => [run.createdAt, run.outcome]), [[at(0.5), 'errored']], 'a stage that errored with no evaluation; the errored check says nothing of it');
  });

  it('reads the stages apart when a list ignores include=task_stages', async () => {
    await f.emulator.control('PUT', '/behaviour', { 'run-lists-ignore-include': true });
    try {
      const runs = await f.client.runs.listWorkspaceRuns('ws-one', { includeTaskStages: true });
      assert.deepEqual(runs.map((run) => run.taskStages), [null, null, null], 'an empty relationship without included says nothing');
      await f.emulator.clearRequests();
      const readout = await readEvidence(f.client.runs, { organization: ORG, workspaces: [{ id: 'ws-one', name: 'one' }], now: () => NOW, policies: [{ name: 'tags', via: 'evaluation' }] });
      assert.equal(readout.policies[0]?.workspaces[0]?.runs[0]?.outcome, 'passed');
      assert.equal((await f.emulator.requests()).filter((r) => (r.path.split('?')[0] ?? '').endsWith('/task-stages')).length, 3);
    } finally {
      await f.emulator.control('PUT', '/behaviour', { 'run-lists-ignore-include': false });
    }
  });

  it('the workspace\'s list leaves out plan-only runs unless filter[operation] names them', async () => {
    type Doc = { data: Array<{ attributes: Record<string, unknown> }> };
    const plain = (await f.emulator.call('GET', '/workspaces/ws-one/runs')).json as Doc;
    assert.deepEqual(plain.data.map((run) => run.attributes['plan-only']), [false, false]);
    const asked = (await f.emulator.call('GET', '/workspaces/ws-one/runs?filter%5Boperation%5D=plan_only')).json as Doc;
    assert.deepEqual(asked.data.map((run) => run.attributes['plan-only']), [true]);
    const organization = (await f.emulator.call('GET', '/organizations/acme/runs?filter%5Bworkspace_names%5D=one')).json as Doc;
    assert.equal(organization.data.length, 3);
  });
});

describe('a status word not known', () => {
  it('is unfinished, never clean: the run is read again, and its policy never passes on it', async () => {
    const { runFindings } = await import('../src/api/evidence-runs.js');
    const { policyRun } = await import('../src/api/evidence-summary.js');
    const run = {
      id: 'run-x', status: 'applied', createdAt: at(1), workspaceId: 'ws-one', taskStages: [], policyCheckIds: [], planOnly: false, refreshOnly: false,
      isDestroy: false, source: '', triggerReason: '',
    };
    const check = { id: 'polchk-x', status: 'soft_failing_later', counts: null, policies: null };
    const findings = runFindings(run, [{ id: 'poleval-x', status: 'queued', policyKind: 'opa' }], [], [check]);
    assert.equal(findings.finished, false);
    assert.equal(policyRun(findings, { name: 'p', via: 'check' }), null, 'a check not ended says nothing yet');
    assert.equal(runFindings(run, [], [], [check]).finished, false, 'a check whose status word is not known has not ended');
    assert.equal(runFindings(run, [], [], [{ ...check, status: 'passed' }]).finished, true);
  });
});

describe('the evidence window', () => {
  it('is refused over 365 days, naming the limit: the organization\'s run list reads only the last year', async () => {
    const { parseCliArgs } = await import('../src/cli/args.js');
    assert.throws(() => parseCliArgs(['--dry-run', '--evidence-window', '366d']), /--evidence-window must be at most 365d, not "366d": the organization's run list reads only the last 365 days/);
    assert.equal(parseCliArgs(['--dry-run', '--evidence-window', '365d']).evidence?.windowDays, 365);
  });
});
