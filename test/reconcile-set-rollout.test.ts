/**
 * A versioned set's rollout, against the emulator's runs and one-shot runs that share no state dir: each raised policy
 * is held at the rollout's start in the version uploaded, promoted on its own runs, and once every one is promoted
 * the enforced version is the folder as declared and the plan after says no changes.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { markerSetRollout } from '../src/plan/marker.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';
import { EVIDENCE_WORKSPACES } from './helpers/evidence.js';
import { publishedSchema } from './helpers/published-schema.js';
import { useWorld } from './helpers/world.js';

const [APP, DATA, WEB] = ['ws-AppProd000001', 'ws-DataProd00001', 'ws-WebDev0000001'];
const block = (name: string, level: string) => `policy "${name}" {\n  source = "./${name}.sentinel"\n  enforcement_level = "${level}"\n}\n`;
/** The set `lib`: `strict` and `clean` at `level`, `loose` advisory, with `settings` in its policy-set.yaml. */
const lib = (level: string, settings = '', levels: Record<string, string> = {}) => ({
  'policy-sets/lib/sentinel.hcl': block('clean', levels['clean'] ?? level) + block('loose', levels['loose'] ?? 'advisory') + block('strict', levels['strict'] ?? level),
  ...Object.fromEntries(['clean', 'loose', 'strict'].map((name) => [`policy-sets/lib/${name}.sentinel`, 'main = rule { true }\n'])),
  'policy-sets/lib/policy-set.yaml': `global: true\n${settings}`,
});
const ROLLOUT = 'rollout: { start: advisory, clean-runs: 2 }\n';

async function addRun(emulator: TestEmulator, workspace: string, outcomes: Record<string, string>): Promise<void> {
  const run = await emulator.control('POST', '/runs', { workspace, outcomes });
  assert.equal(run.status, 200, run.text);
}

describe('a versioned set\'s rollout decided by one-shot runs that share no state dir', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  const ci = async (dir: string, mode = '--reconcile', extra: string[] = []) => {
    const run = await fixture.world.cli(mode, dir, ['--state-dir', await fixture.repo({}), ...extra]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    return run.stdout;
  };
  /** The set as the service holds it: the levels its current version enforces, and its marker's rollout. */
  const enforced = async () => {
    const set = (await fixture.world.organization())['policy-sets'].find((s) => s.name === 'lib')!;
    const current = set.versions.find((v) => v.id === set['current-version']);
    return { levels: Object.fromEntries((current?.policies ?? []).map((p) => [p.name, p.level])), rollout: markerSetRollout(set['description'] as string | null) };
  };

  it('holds both raised policies at start, promotes the clean one on its own runs, then the other; then no changes', async () => {
    const { world } = fixture;
    await ci(await fixture.repo(lib('advisory')));
    await addRun(world, APP, { strict: 'failed' });
    const rollout = await fixture.repo(lib('hard-mandatory', ROLLOUT));

    // The pull request: what the uploaded version would hold back, and why.
    const planned = await ci(rollout, '--dry-run');
    assert.match(planned, /# the upload holds back 2 levels \(the set's rollout, see Rollouts\): clean, strict at advisory; the folder is uploaded as declared once each is promoted\n/);
    assert.match(planned, /# held at advisory by the set's rollout: clean, strict; promotion to hard-mandatory would block runs in app-prod\n/);
    assert.doesNotMatch(planned, /# ! would block/);
    assert.match(planned, /policy "clean" of set "lib": rollout starts: held at advisory until 2 clean runs, at most 0 failing workspaces; then hard-mandatory/);
    const json = JSON.parse(await ci(rollout, '--dry-run', ['--output', 'json'])) as { sources: Array<{ rollouts: Array<{ policy: string; set?: string; state: string }> }> };
    const validate = publishedSchema('plan');
    assert.ok(validate(json), JSON.stringify(validate.errors));
    assert.deepEqual(json.sources[0]!.rollouts.map((r) => [r.set, r.policy, r.state]), [['lib', 'clean', 'starting'], ['lib', 'strict', 'starting']]);

    const started = await ci(rollout);
    assert.match(started, /policy "strict" of set "lib": rollout starts: held at advisory/);
    assert.deepEqual((await enforced()).levels, { clean: 'advisory', loose: 'advisory', strict: 'advisory' }, 'the first apply holds both at start');
    assert.equal((await enforced()).rollout?.state, 'held');

    // Clean runs in two workspaces since the rollout began: clean is promoted; strict still fails in app-prod.
    await addRun(world, DATA, {});
    await addRun(world, WEB, {});
    const partly = await ci(rollout);
    assert.match(partly, /policy "clean" of set "lib": promoted to hard-mandatory by its rollout: 2 of 2 clean runs/);
    assert.match(partly, /policy "strict" of set "lib": held at advisory by its rollout: 2 of 2 clean runs; fails in app-prod/);
    assert.match(partly, /# policy-set "lib" will be updated in-place \(rollout promoted; differs in rollout, content\)/);
    assert.doesNotMatch(partly, /files changed/, 'the folder did not change');
    assert.deepEqual((await enforced()).levels, { clean: 'hard-mandatory', loose: 'advisory', strict: 'advisory' });

    await addRun(world, APP, {});
    const promoted = await ci(rollout);
    assert.match(promoted, /policy "strict" of set "lib": promoted to hard-mandatory by its rollout/);
    const after = await enforced();
    assert.deepEqual(after.levels, { clean: 'hard-mandatory', loose: 'advisory', strict: 'hard-mandatory' }, 'the enforced version is the folder as declared');
    assert.equal(after.rollout?.state, 'promoted');

    await world.clearRequests();
    assert.match(await ci(rollout, '--dry-run'), /No changes/);
    assert.deepEqual((await world.requests()).filter((r) => /\/runs|\/workspaces/.test(r.path)), [], 'a finished rollout reads no run');
  });

  it('a lowered level applies at once; a newly raised policy is held alone, the others staying as enforced', async () => {
    const lowered = await ci(await fixture.repo(lib('hard-mandatory', ROLLOUT, { strict: 'soft-mandatory' })));
    assert.doesNotMatch(lowered, /rollout starts/);
    assert.deepEqual((await enforced()).levels, { clean: 'hard-mandatory', loose: 'advisory', strict: 'soft-mandatory' });
    const raised = await ci(await fixture.repo(lib('hard-mandatory', ROLLOUT, { strict: 'soft-mandatory', loose: 'hard-mandatory' })));
    assert.match(raised, /policy "loose" of set "lib": rollout starts: held at advisory/);
    assert.doesNotMatch(raised, /policy "(clean|strict)" of set "lib"/);
    assert.deepEqual((await enforced()).levels, { clean: 'hard-mandatory', loose: 'advisory', strict: 'soft-mandatory' });
    assert.equal((await enforced()).rollout?.state, 'held');
  });
});

test('the daemon holds a versioned set\'s raised policy, then promotes it on the pass after its runs are clean', { timeout: 60_000 }, async (t) => {
  const emulator = await TestEmulator.start({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }], behaviour: { ingestionMs: 150 } });
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: captureLogs().logger });
  t.after(() => api.close());
  const repo = await tempTree(t, lib('hard-mandatory', 'rollout: { start: advisory, clean-runs: 1 }\n'));
  const { daemon, get } = await startTestDaemon(t, { sources: [testSource('platform', { organization: ORG, path: repo })], api });
  await daemon.whenIdle();
  const levels = async () => {
    const set = (await emulator.organization())['policy-sets'].find((s) => s.name === 'lib')!;
    return Object.fromEntries((set.versions.find((v) => v.id === set['current-version'])?.policies ?? []).map((p) => [p.name, p.level]));
  };
  assert.deepEqual(await levels(), { clean: 'advisory', loose: 'advisory', strict: 'advisory' }, 'created with both held at start');
  await addRun(emulator, APP, { strict: 'failed' });
  daemon.trigger('platform', 'schedule');
  await daemon.whenIdle();
  assert.deepEqual(await levels(), { clean: 'hard-mandatory', loose: 'advisory', strict: 'advisory' });
  const rollouts = ((await (await get('/status')).json()) as { sources: Array<{ rollouts?: Array<{ policy: string; state: string }> }> }).sources[0]?.rollouts;
  assert.deepEqual(rollouts?.map((r) => [r.policy, r.state]), [['clean', 'promoted'], ['strict', 'held']]);
  await addRun(emulator, APP, {});
  daemon.trigger('platform', 'schedule');
  await daemon.whenIdle();
  assert.deepEqual(await levels(), { clean: 'hard-mandatory', loose: 'advisory', strict: 'hard-mandatory' });
});
