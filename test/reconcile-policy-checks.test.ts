/**
 * Evidence as the service reports it for a Sentinel set that is not agent-enabled: through each run's policy check,
 * not policy evaluations. A raise names the workspaces whose checks fail it, in text, Markdown and JSON; a rollout
 * promotes on clean checks and holds on a soft-failed one; a check that errored, one with only counts, a stage that
 * ended canceled hold it and are named; a passing speculative plan never counts as clean nor hides a failing apply.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { publishedSchema } from './helpers/published-schema.js';
import { EVIDENCE_WORKSPACES, s3Repo } from './helpers/evidence.js';
import { useWorld } from './helpers/world.js';

const [APP, DATA, WEB, SANDBOX] = EVIDENCE_WORKSPACES.map((ws) => ws.id) as [string, string, string, string];
const ROLLOUT = 'rollout: { start: advisory, clean-runs: 3 }\n';

describe('policy checks as evidence', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  const addRun = async (workspace: string, body: Record<string, unknown>): Promise<void> => {
    const run = await fixture.world.control('POST', '/runs', { workspace, ...body });
    assert.equal(run.status, 200, run.text);
  };
  const ci = async (dir: string, extra: string[] = []): Promise<string> => {
    const run = await fixture.world.cli('--reconcile', dir, ['--state-dir', await fixture.repo({}), ...extra]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    return run.stdout;
  };

  it('a raise names the workspaces whose checks fail it, read from their policy checks, in every format', async () => {
    const { world } = fixture;
    await ci(await fixture.repo(s3Repo('advisory')));
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    await addRun(APP, { outcomes: { 's3-encryption': 'failed' }, 'created-at': hourAgo });
    await addRun(DATA, { outcomes: { 's3-encryption': 'passed' }, 'created-at': hourAgo });
    // A passing speculative plan, newer than data-prod's failing apply... of web-dev: it cannot apply, so it says nothing.
    await addRun(WEB, { outcomes: { 's3-encryption': 'failed' }, 'created-at': hourAgo });
    await addRun(WEB, { outcomes: { 's3-encryption': 'passed' }, 'plan-only': true, status: 'planned_and_finished' });
    await addRun(SANDBOX, { outcomes: { 's3-encryption': 'failed' }, 'plan-only': true, status: 'planned_and_finished' });
    const dir = await fixture.repo(s3Repo('hard-mandatory'));
    await world.clearRequests();
    const text = await world.cli('--dry-run', dir);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /# evidence \(30 days\): fails in 2 of 4 workspaces in scope \(app-prod, web-dev\); 1 pass; 1 never evaluated it\n {8}# warning: speculative plans \(which cannot apply\) fail in sandbox\n {8}# ! would block runs in app-prod, web-dev\n/);
    const paths = (await world.requests()).map((r) => r.path.split('?')[0] ?? '');
    assert.ok(paths.some((p) => /^\/runs\/run-[^/]+\/policy-checks$/.test(p)), paths.join('\n'));
    assert.ok(!paths.some((p) => /policy-evaluations|policy-set-outcomes/.test(p)), 'a run whose stages name no evaluation reads none');

    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.match(markdown.stdout, /fails in 2 of 4 workspaces in scope \(app-prod, web-dev\)/);
    assert.match(markdown.stdout, /warning: speculative plans \(which cannot apply\) fail in sandbox/);
    const json = await world.cli('--dry-run', dir, ['--output', 'json']);
    const document = JSON.parse(json.stdout) as { sources: Array<{ changes: Array<{ name: string; evidence?: Record<string, unknown> }> }> };
    const validate = publishedSchema('plan');
    assert.ok(validate(document), JSON.stringify(validate.errors));
    const evidence = document.sources[0]!.changes.find((c) => c.name === 's3-encryption')!.evidence;
    assert.deepEqual([evidence?.failing, evidence?.passing, evidence?.not_evaluated, evidence?.failing_speculative], [['app-prod', 'web-dev'], 1, 1, ['sandbox']]);
  });

  it('a rollout holds on a soft-failed check, on one that errored or gave only counts, and on a canceled stage; promotes on clean checks in enough workspaces', async () => {
    const { world } = fixture;
    const rollout = await fixture.repo(s3Repo('hard-mandatory', ROLLOUT));
    assert.match(await ci(rollout), /rollout starts: held at advisory until 3 clean runs/);
    const soon = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();
    // Five clean checks in one workspace vouch for it alone.
    for (let i = 1; i <= 5; i += 1) await addRun(APP, { outcomes: { 's3-encryption': 'passed' }, 'created-at': soon(i) });
    assert.match(await ci(rollout), /held at advisory by its rollout: 1 of 3 clean runs; fails in web-dev; 1 of 4 workspaces in scope never evaluated it\n/);
    await addRun(DATA, { outcomes: { 's3-encryption': 'passed' }, 'created-at': soon(10) });
    await addRun(WEB, { outcomes: { 's3-encryption': 'passed' }, 'created-at': soon(10) });
    await addRun(SANDBOX, { outcomes: { 's3-encryption': 'passed' }, 'created-at': soon(10) });
    let step = 20;
    for (const [body, words] of [
      [{ check: 'errored' }, 'errored in sandbox'],
      [{ outcomes: { 's3-encryption': 'failed' }, 'check-detail': false }, 'errored in sandbox'],
      [{ stage: 'canceled', check: 'canceled' }, 'errored in sandbox'],
    ] as const) {
      await addRun(SANDBOX, { ...body, 'created-at': soon((step += 1)) });
      const out = await ci(rollout);
      assert.match(out, new RegExp(`held at advisory by its rollout: 4 of 3 clean runs; ${words}\\n`), JSON.stringify(body) + out);
      await addRun(SANDBOX, { outcomes: { 's3-encryption': 'passed' }, 'created-at': soon((step += 1)) });
    }
    await addRun(WEB, { outcomes: { 's3-encryption': 'failed' }, status: 'policy_override', 'created-at': soon(60) });
    assert.match(await ci(rollout), /held at advisory by its rollout: 4 of 3 clean runs; fails in web-dev\n/);
    await addRun(WEB, { outcomes: { 's3-encryption': 'passed' }, 'created-at': soon(70) });
    await addRun(DATA, { outcomes: { 's3-encryption': 'passed' }, 'plan-only': true, status: 'planned_and_finished', 'created-at': soon(80) });
    assert.match(await ci(rollout), /promoted to hard-mandatory by its rollout: 4 of 3 clean runs/);
    const json = await world.cli('--dry-run', rollout, ['--output', 'json']);
    assert.equal(json.code, 0, json.stderr);
  });
});

describe('a set made not overridable', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  const repo = (overridable: boolean) => ({
    'policy-sets/rego.yaml': `kind: opa\nglobal: true\noverridable: ${overridable}\n`,
    'policies/tags.rego': 'package tags\ndeny[msg] { false; msg := "x" }\n',
    'policies/tags.yaml': 'query: data.tags.deny\nenforcement-level: mandatory\npolicy-sets: [rego]\n',
    'policies/hint.rego': 'package hint\ndeny[msg] { false; msg := "x" }\n',
    'policies/hint.yaml': 'query: data.hint.deny\nenforcement-level: advisory\npolicy-sets: [rego]\n',
  });

  it('carries evidence as a raise of its mandatory members: whose failures nobody can override any more', async () => {
    const { world } = fixture;
    const created = await world.cli('--reconcile', await fixture.repo(repo(true)));
    assert.equal(created.code, 0, created.stdout + created.stderr);
    for (const [workspace, outcome] of [[APP, 'failed'], [DATA, 'passed']] as const) {
      const run = await world.control('POST', '/runs', { workspace, outcomes: { tags: outcome, hint: 'failed' } });
      assert.equal(run.status, 200, run.text);
    }
    const dir = await fixture.repo(repo(false));
    const text = await world.cli('--dry-run', dir);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /~ overridable += true -> false\n {8}# evidence \(30 days\): fails in 1 of 4 workspaces in scope \(app-prod\); 1 pass; 2 never evaluated it\n {8}# ! would block runs in app-prod\n/);
    const json = await world.cli('--dry-run', dir, ['--output', 'json']);
    const document = JSON.parse(json.stdout) as { sources: Array<{ changes: Array<{ name: string; evidence?: Record<string, unknown> }> }> };
    const evidence = document.sources[0]!.changes.find((c) => c.name === 'rego')!.evidence;
    assert.deepEqual([evidence?.policies, evidence?.failing, evidence?.blocking], [['tags'], ['app-prod'], ['app-prod']]);
    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.match(markdown.stdout, /fails in 1 of 4 workspaces in scope \(app-prod\)/);
  });
});

describe('a tightening plan over 200 workspaces at the run lists\' 30 a minute', () => {
  const workspaces = Array.from({ length: 200 }, (_, i) => ({ id: `ws-w${String(i).padStart(4, '0')}`, name: `w${String(i).padStart(4, '0')}` }));
  const fixture = useWorld({ rateLimit: 30, runListRateLimit: 30, organizations: [{ name: ORG, maxAgentPools: 1, workspaces }] });

  it('ends within its time budget, partial, with what it read, and no request answered 429', async () => {
    const { world } = fixture;
    // Creating the policy in a global set reads evidence too: over 200 workspaces with no run, 30 lists a minute.
    const created = await world.cli('--reconcile', await fixture.repo(s3Repo('advisory')), ['--evidence-max-seconds', '1']);
    assert.equal(created.code, 0, created.stdout + created.stderr);
    const run = await world.control('POST', '/runs', { workspace: 'ws-w0000', outcomes: { 's3-encryption': 'failed' } });
    assert.equal(run.status, 200, run.text);
    await world.clearRequests();
    // The organization's list gives one workspace a run, read first; the others are then listed one by one, 30 a minute,
    // until the read's time is spent.
    const plan = await world.cli('--dry-run', await fixture.repo(s3Repo('hard-mandatory')), ['--evidence-max-seconds', '2', '--timeout', '60']);
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    assert.match(plan.stdout, /# evidence \(30 days\): fails in 1 of 200 workspaces in scope \(w0000\); 0 pass; 199 never evaluated it; partial: the read stopped before it read every run/);
    const requests = await world.requests();
    const lists = requests.filter((r) => /\/runs(\?|$)/.test(r.path));
    assert.ok(lists.length >= 2 && lists.length <= 30, `${lists.length} run lists in the first minute`);
    assert.deepEqual(requests.filter((r) => r.status === 429), [], 'no request answered 429');
  });
});
