/**
 * The action's inputs beyond a plain plan: what a policy set's parameters may read (parameter-env, with the values
 * given through the step's env:, and parameter-files), the native kind's word, validate, saved plans (out, plan), and
 * a pull request from a fork, which gets no secrets and so no token.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { readAction, runAction, type ActionFile, type RunOptions } from '../helpers/action-runner.js';
import { ORG, WORKSPACES } from '../helpers/emulator.js';
import { useWorld } from '../helpers/world.js';

const REGION = 'eu-west-Param-Value-0042';
const SIGNING = 'signing-Key-Value-7731';
const POLICY = { 'policies/tags.native': 'main = rule { true }\n' };

describe('action.yml: parameters, native kind, validate, saved plans, forks', () => {
  let action: ActionFile;
  before(async () => {
    action = await readAction();
  });
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES }] });

  async function run(dir: string, inputs: Record<string, string>, extra: Partial<RunOptions> = {}) {
    const result = await runAction(action, { cwd: dir, inputs: { organization: ORG, 'api-url': fixture.world.url, token: fixture.world.token, ...inputs }, ...extra });
    assert.ok(!JSON.stringify(result).includes(fixture.world.token), 'the API token appears in the outputs, logs or summary');
    for (const value of [REGION, SIGNING]) assert.ok(!JSON.stringify(result).includes(value), 'a sensitive value appears in the outputs, logs or summary');
    return result;
  }

  it('has the inputs', () => {
    for (const input of ['native-kind', 'parameter-env', 'parameter-files', 'out', 'plan']) assert.ok(action.inputs[input], input);
    assert.match(action.inputs['mode']?.description ?? '', /validate/);
  });

  it('parameter-env and parameter-files: a set reads what they allow, from the step\'s env: and the folder; without them it is refused', async () => {
    const secrets = await fixture.repo({ 'signing.key': `${SIGNING}\n` });
    const dir = await fixture.repo({ ...POLICY, 'policy-sets/params.yaml': 'parameters:\n  region: { env: PPS_PARAM_REGION }\n  signing: { file: signing.key }\n' });
    const env = { PPS_PARAM_REGION: REGION };
    const refused = await run(dir, { mode: 'dry-run', source: 'params-test' }, { env });
    assert.equal(refused.ok, false);
    assert.match(refused.summary, /parameters\.region: \{env: PPS\\_PARAM\\_REGION\} is not allowed: the operator allows what a parameter may read \(the action's input parameter-env PPS\\_PARAM\\_REGION, or parameters\.env in the config\)/);
    const applied = await run(dir, { mode: 'reconcile', source: 'params-test', 'parameter-env': 'PPS_OTHER, PPS_PARAM_*', 'parameter-files': secrets }, { env });
    assert.ok(applied.ok, JSON.stringify(applied.steps, null, 2));
    const set = (await fixture.world.organization())['policy-sets'].find((s) => s.name === 'params');
    assert.deepEqual(set?.parameters.map((p) => [p.key, p.value, p.sensitive]), [['region', REGION, true], ['signing', SIGNING, true]]);
  });

  it('native-kind reaches the command line', async () => {
    const result = await run(await fixture.repo(POLICY), { mode: 'dry-run', 'native-kind': 'rego' });
    assert.equal(result.ok, false);
    assert.match(result.steps[1]?.stderr ?? '', /the action's input native-kind must be native or sentinel, not "rego"/);
    const given = await run(await fixture.repo({ 'policies/kind.native': 'main = rule { true }\n' }), { mode: 'dry-run', 'native-kind': 'native' });
    assert.ok(given.ok, JSON.stringify(given.steps, null, 2));
  });

  it('mode validate checks the repo with no API call', async () => {
    await fixture.world.clearRequests();
    const valid = await run(await fixture.repo(POLICY), { mode: 'validate' });
    assert.ok(valid.ok, JSON.stringify(valid.steps, null, 2));
    assert.equal(valid.outputs['exit-code'], '0');
    assert.match(valid.summary, /declared repo check/);
    const invalid = await run(await fixture.repo({ 'policies/bad.native': 'main = rule { true }\n', 'policies/bad.yaml': 'levle: advisory\n' }), { mode: 'validate' });
    assert.equal(invalid.ok, false);
    assert.match(invalid.summary, /bad\.yaml:1: unknown key/);
    assert.deepEqual(await fixture.world.requests(), []);
  });

  it('a fork\'s pull request (no token): a dry run validates and says so, comments nothing; a reconcile fails', async () => {
    await fixture.world.clearRequests();
    const dir = await fixture.repo({ ...POLICY, 'policy-sets/params.yaml': 'parameters:\n  region: { env: PPS_PARAM_REGION }\n' });
    const planned = await run(dir, { mode: 'dry-run', token: '', comment: 'true', 'parameter-env': 'PPS_PARAM_*' }, { pullRequest: 9 });
    assert.ok(planned.ok, JSON.stringify(planned.steps, null, 2));
    assert.match(planned.steps[1]?.stdout ?? '', /::warning::no API token \(a pull request from a fork gets no secrets\): the declared repo is validated, no plan is made/);
    assert.match(planned.summary, /declared repo check/);
    assert.deepEqual([planned.outputs['changes'], planned.outputs['exit-code']], ['false', '0']);
    assert.match(planned.steps[2]?.stdout ?? '', /no plan was made .*no comment posted/);
    const applied = await run(dir, { mode: 'reconcile', token: '' });
    assert.equal(applied.ok, false);
    assert.match(applied.steps[1]?.stderr ?? '', /no API token/);
    assert.deepEqual(await fixture.world.requests(), []);
  });

  it('out saves the plan of a dry run; plan applies exactly it', async () => {
    const dir = await fixture.repo({ 'policies/saved.native': 'main = rule { true }\n' });
    const file = join(await fixture.repo(), 'plan.json');
    const planned = await run(dir, { mode: 'dry-run', source: 'saved-test', out: file });
    assert.ok(planned.ok, JSON.stringify(planned.steps, null, 2));
    const applied = await run(dir, { mode: 'reconcile', source: 'saved-test', plan: file });
    assert.ok(applied.ok, JSON.stringify(applied.steps, null, 2));
    assert.ok((await fixture.world.policies()).some((p) => p.name === 'saved'));
    await writeFile(join(dir, 'policies/saved.native'), 'main = rule { false }\n');
    const stale = await run(dir, { mode: 'reconcile', source: 'saved-test', plan: file });
    assert.equal(stale.ok, false, 'a plan applied once is stale');
  });
});
