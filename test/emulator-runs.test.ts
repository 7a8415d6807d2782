/**
 * The emulator's runs as raw HTTP sees them: a YAML seed's runs (a workspace of another organization refused with its
 * line), the organization's run list without total-count and with its filters, a run under way whose evaluations read
 * running until the control endpoint finishes it, and the control endpoint's 400s.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseSeed } from '../src/emulator/index.js';
import { ValidationError } from '../src/errors.js';
import { TestEmulator } from './helpers/emulator.js';

const SEED = `
token: runs-token
rate-limit: 0
organizations:
  - name: acme
    workspaces: [{ id: ws-app, name: app }, { id: ws-ops, name: ops }]
    runs:
      - workspace: ws-app
        created-at: 2026-11-20T10:00:00Z
        outcomes:
          - { policy: deny-public, set: baseline, status: failed, level: soft-mandatory, print: [bucket logs is public], via: evaluation }
          - { policy: tags, set: rego, status: passed, kind: opa }
      - { id: run-OpsUnreachable01, workspace: ws-ops, created-at: 2026-11-21T10:00:00Z, evaluation: unreachable }
      - { workspace: ws-ops, created-at: 2026-11-22T10:00:00Z, status: planning, outcomes: [{ policy: deny-public, set: baseline, status: passed, via: evaluation }] }
`;

type Doc = { data: Array<{ id: string; attributes: Record<string, unknown>; relationships: Record<string, { data: Array<{ id: string }> }> }>; meta: { pagination: Record<string, unknown> } };

describe('the emulator\'s runs', () => {
  let emulator: TestEmulator;
  before(async () => (emulator = await TestEmulator.start(parseSeed(SEED, 'seed.yaml'))));
  after(() => emulator.close());

  it('refuses a seeded run of a workspace the organization does not have, naming its line', () => {
    const bad = SEED.replace('workspace: ws-app', 'workspace: ws-elsewhere');
    assert.throws(() => parseSeed(bad, 'seed.yaml'), (error: unknown) => {
      assert.ok(error instanceof ValidationError);
      assert.deepEqual(error.problems.map((problem) => [problem.line, problem.message.replace(/^.*?"ws-/, '"ws-')]), [[8, '"ws-elsewhere" is not a workspace of organization "acme"']]);
      return true;
    });
  });

  it('lists the organization\'s runs newest first, without total-count, by workspace name and status group', async () => {
    const all = (await emulator.call('GET', '/organizations/acme/runs?page%5Bsize%5D=2')).json as Doc;
    assert.deepEqual(all.data.map((run) => run.attributes.status), ['planning', 'applied']);
    assert.equal(all.meta.pagination['total-count'], undefined);
    assert.equal(all.meta.pagination['next-page'], 2);
    const app = (await emulator.call('GET', '/organizations/acme/runs?filter%5Bworkspace_names%5D=app')).json as Doc;
    assert.equal(app.data.length, 1);
    const final = (await emulator.call('GET', '/organizations/acme/runs?filter%5Bstatus_group%5D=final')).json as Doc;
    assert.deepEqual(final.data.map((run) => run.id).includes('run-OpsUnreachable01'), true);
    assert.equal(final.data.length, 2);
    assert.equal((await emulator.call('GET', '/organizations/acme/runs?filter%5Bstatus_group%5D=everything')).status, 400);
  });

  it('shows a seeded run\'s outcomes whole, and an unreachable evaluation with none', async () => {
    const [run] = ((await emulator.call('GET', '/workspaces/ws-app/runs')).json as Doc).data;
    const stages = ((await emulator.call('GET', `/runs/${run?.id}/task-stages`)).json as Doc).data;
    const postPlan = stages.find((stage) => stage.attributes.stage === 'post_plan');
    assert.equal(postPlan?.attributes.status, 'failed');
    const evaluations = ((await emulator.call('GET', `/task-stages/${postPlan?.id}/policy-evaluations`)).json as Doc).data;
    assert.deepEqual(evaluations.map((e) => [e.attributes['policy-kind'], e.attributes.status]), [['native', 'failed'], ['opa', 'passed']]);
    const sets = ((await emulator.call('GET', `/policy-evaluations/${evaluations[0]?.id}/policy-set-outcomes`)).json as Doc).data;
    assert.deepEqual(sets[0]?.attributes, {
      outcomes: [{ policy_name: 'deny-public', enforcement_level: 'soft-mandatory', status: 'failed', description: '', query: '', output: [{ print: 'bucket logs is public' }] }],
      error: '', overridable: null, 'policy-set-name': 'baseline', 'policy-set-description': '',
      result_count: { 'advisory-failed': 0, 'mandatory-failed': 1, passed: 0, errored: 0 },
    });
    const unreachable = ((await emulator.call('GET', '/runs/run-OpsUnreachable01/task-stages?include=policy_evaluations')).json as Doc).data;
    const stage = unreachable.find((s) => s.attributes.stage === 'post_plan');
    const evaluation = ((await emulator.call('GET', `/task-stages/${stage?.id}/policy-evaluations`)).json as Doc).data[0];
    assert.equal(evaluation?.attributes.status, 'unreachable');
    assert.deepEqual(((await emulator.call('GET', `/policy-evaluations/${evaluation?.id}/policy-set-outcomes`)).json as Doc).data, []);
  });

  it('keeps a run under way running, with no outcome, until it is moved to a final status', async () => {
    const [run] = ((await emulator.call('GET', '/workspaces/ws-ops/runs?filter%5Bstatus%5D=planning')).json as Doc).data;
    const evaluationsOf = async (): Promise<Doc['data']> => {
      const stages = ((await emulator.call('GET', `/runs/${run?.id}/task-stages`)).json as Doc).data;
      const stage = stages.find((s) => s.attributes.stage === 'post_plan');
      return ((await emulator.call('GET', `/task-stages/${stage?.id}/policy-evaluations`)).json as Doc).data;
    };
    const [running] = await evaluationsOf();
    assert.equal(running?.attributes.status, 'running');
    assert.deepEqual(((await emulator.call('GET', `/policy-evaluations/${running?.id}/policy-set-outcomes`)).json as Doc).data, []);
    const moved = await emulator.control('PATCH', `/runs/${run?.id}`, { status: 'applied' });
    assert.equal(moved.status, 200, moved.text);
    const [ended] = await evaluationsOf();
    assert.equal(ended?.attributes.status, 'passed');
    assert.equal(((await emulator.call('GET', `/policy-evaluations/${ended?.id}/policy-set-outcomes`)).json as Doc).data.length, 1);
  });

  it('answers 400 to a control body it cannot take, naming the key', async () => {
    for (const [body, detail] of [
      [{ outcomes: {} }, /"workspace": "ws-…"/],
      [{ workspace: 'ws-app', outcomes: { x: 'maybe' } }, /outcomes\["x"\] must be passed, failed or errored/],
      [{ workspace: 'ws-app', evaluation: 'lost' }, /evaluation must be unreachable, errored, canceled, queued/],
      [{ workspace: 'ws-nowhere' }, /ws-nowhere is in no organization/],
    ] as const) {
      const response = await emulator.control('POST', '/runs', body);
      assert.equal(response.status, 400);
      assert.match((response.json as { errors: Array<{ detail: string }> }).errors[0]?.detail ?? '', detail);
    }
  });
});
