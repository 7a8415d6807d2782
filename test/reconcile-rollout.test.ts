/**
 * Rollouts against the emulator's runs: held while a workspace fails, runs are too few, an evaluation errored or the
 * evidence is partial; promoted on the pass after the conditions hold, by one-shot runs that share no state dir and by
 * the daemon; started again when the rollout changes; a lowered level applied at once.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { markerRollout } from '../src/plan/marker.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { parseExposition, sampleValue } from './helpers/daemon-prometheus.js';
import { captureLogs } from './helpers/logs.js';
import { tempTree } from './helpers/temp-tree.js';
import { useWorld } from './helpers/world.js';
import { EVIDENCE_WORKSPACES, s3Repo } from './helpers/evidence.js';

const ROLLOUT = 'rollout: { start: advisory, clean-runs: 2 }\n';
const [APP, DATA, WEB] = ['ws-AppProd000001', 'ws-DataProd00001', 'ws-WebDev0000001'];

async function addRun(emulator: TestEmulator, workspace: string, body: Record<string, unknown>): Promise<void> {
  const run = await emulator.control('POST', '/runs', { workspace, ...body });
  assert.equal(run.status, 200, run.text);
}

describe('a rollout decided by one-shot runs that share no state dir', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  /** A --reconcile as a CI job runs it: a state dir of its own, thrown away after. */
  const ci = async (dir: string, extra: string[] = []) => {
    const run = await fixture.world.cli('--reconcile', dir, ['--state-dir', await fixture.repo({}), ...extra]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    return run.stdout;
  };
  const s3 = async () => (await fixture.world.policies()).find((p) => p.name === 's3-encryption')!;
  const level = async () => (await s3())['enforcement-level'];
  const record = async () => markerRollout((await s3()).description as string | null);

  it('holds, then promotes when the runs are clean; never on errored or partial evidence', async () => {
    const { world } = fixture;
    await ci(await fixture.repo(s3Repo('advisory')));
    const dayAgo = new Date(Date.now() - 86_400_000).toISOString();
    await addRun(world, APP, { outcomes: { 's3-encryption': 'failed' }, 'created-at': dayAgo });
    await addRun(world, DATA, { outcomes: { 's3-encryption': 'passed' }, 'created-at': dayAgo });
    const rollout = await fixture.repo(s3Repo('hard-mandatory', ROLLOUT));

    const starting = await ci(rollout);
    assert.match(starting, /policy "s3-encryption": rollout starts: held at advisory until 2 clean runs, at most 0 failing workspaces; then hard-mandatory/);
    // The pull request that adds the rollout shows the level it holds now, and whom the level it rolls out to would block.
    assert.match(starting, /\+ rollout = "held since [^"]+"\n {8}# evidence \(30 days\): fails in 1 of 4 workspaces in scope \(app-prod\); 1 pass; 2 never evaluated it\n {8}# held at advisory by its rollout; promotion to hard-mandatory would block runs in app-prod\n/);
    assert.equal(await level(), 'advisory');
    const started = await record();
    assert.equal(started?.state, 'held');

    // Runs from before the rollout began are not clean runs, and app-prod's latest fails.
    assert.match(await ci(rollout), /held at advisory by its rollout: 0 of 2 clean runs; fails in app-prod; 2 of 4 workspaces in scope never evaluated it\n/);
    assert.equal(await level(), 'advisory');

    await addRun(world, APP, { outcomes: { 's3-encryption': 'passed' } });
    await addRun(world, DATA, { outcomes: { 's3-encryption': 'passed' } });
    // A Sentinel set that is not agent-enabled reports through a policy check: an errored check holds the rollout.
    await addRun(world, WEB, { check: 'errored' });
    assert.match(await ci(rollout), /held at advisory by its rollout: 2 of 2 clean runs; errored in web-dev; 2 of 4 workspaces in scope never evaluated it\n/);
    assert.equal(await level(), 'advisory');

    await addRun(world, WEB, { outcomes: { 's3-encryption': 'passed' } });
    assert.match(await ci(rollout, ['--evidence-max-requests', '1']), /held at advisory by its rollout: \d+ of 2 clean runs; [^\n]*evidence partial\n/);
    assert.equal(await level(), 'advisory');

    const promoted = await ci(rollout);
    assert.match(promoted, /policy "s3-encryption": promoted to hard-mandatory by its rollout: 3 of 2 clean runs/);
    assert.match(promoted, /# policy "s3-encryption" will be updated in-place \(rollout promoted; differs in enforcement-level, rollout\)/);
    assert.match(promoted, /~ enforcement-level = "advisory" -> "hard-mandatory"/);
    assert.equal(await level(), 'hard-mandatory');
    assert.deepEqual(await record(), { ...started!, state: 'promoted' });

    await world.clearRequests();
    assert.match(await ci(rollout), /No changes/);
    assert.deepEqual((await world.requests()).filter((r) => /\/runs|\/workspaces/.test(r.path)), [], 'a finished rollout reads no run');
  });

  it('a changed rollout starts again at its start level; a lowered level without one applies at once', async () => {
    const { world } = fixture;
    const before = await record();
    assert.equal(before?.state, 'promoted');
    await ci(await fixture.repo(s3Repo('hard-mandatory', 'rollout: { start: advisory, clean-runs: 3 }\n')));
    assert.equal(await level(), 'advisory');
    const again = await record();
    assert.equal(again?.state, 'held');
    assert.notEqual(again?.digest, before?.digest);
    await ci(await fixture.repo(s3Repo('soft-mandatory')));
    assert.equal(await level(), 'soft-mandatory');
    assert.equal(await record(), null);
    assert.ok(world);
  });
});

describe('a YAML set\'s rollout for its members', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });

  it('holds each member that declares no level of its own in its own marker, then promotes it; a member\'s own level wins', async () => {
    const { world } = fixture;
    const repo = await fixture.repo({
      'policy-sets/all.yaml': `global: true\nenforcement-level: hard-mandatory\n${ROLLOUT}`,
      'policies/s3-encryption.native': 'main = rule { true }\n',
      'policies/s3-encryption.yaml': 'policy-sets: [all]\n',
      'policies/tags.native': 'main = rule { true }\n',
      'policies/tags.yaml': 'policy-sets: [all]\nenforcement-level: advisory\n',
    });
    const ci = async () => {
      const run = await world.cli('--reconcile', repo, ['--state-dir', await fixture.repo({})]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      return run.stdout;
    };
    const policy = async (name: string) => (await world.policies()).find((p) => p.name === name)!;
    assert.match(await ci(), /policy "s3-encryption": rollout starts: held at advisory until 2 clean runs/);
    assert.equal((await policy('s3-encryption'))['enforcement-level'], 'advisory');
    assert.equal(markerRollout((await policy('s3-encryption')).description as string)?.state, 'held');
    assert.equal((await policy('tags'))['enforcement-level'], 'advisory');
    assert.equal(markerRollout((await policy('tags')).description as string | null), null, 'a member with its own level has no rollout');

    await addRun(world, APP, { outcomes: { 's3-encryption': 'passed' } });
    await addRun(world, DATA, { outcomes: { 's3-encryption': 'passed' } });
    assert.match(await ci(), /policy "s3-encryption": promoted to hard-mandatory by its rollout: 2 of 2 clean runs/);
    assert.equal((await policy('s3-encryption'))['enforcement-level'], 'hard-mandatory');
    assert.equal(markerRollout((await policy('s3-encryption')).description as string)?.state, 'promoted');
    assert.equal((await policy('tags'))['enforcement-level'], 'advisory');
  });
});

describe('a rollout\'s after: no promotion before its time, whatever the runs say', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });

  it('holds while after has not passed since the rollout began, and promotes on the first pass once it has', async () => {
    const { world } = fixture;
    const repo = await fixture.repo(s3Repo('hard-mandatory', 'rollout: { start: advisory, clean-runs: 1, after: 7d }\n'));
    const ci = async () => {
      const run = await world.cli('--reconcile', repo, ['--state-dir', await fixture.repo({})]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      return run.stdout;
    };
    const s3 = async () => (await world.policies()).find((p) => p.name === 's3-encryption')!;
    assert.match(await ci(), /rollout starts: held at advisory until 1 clean run, at most 0 failing workspaces, not before \S+Z; then hard-mandatory/);
    const started = markerRollout((await s3()).description as string)!;
    await addRun(world, APP, { outcomes: { 's3-encryption': 'passed' } });
    await addRun(world, DATA, { outcomes: { 's3-encryption': 'passed' } });
    const notBefore = new Date(started.startedAt + 7 * 86_400_000).toISOString().slice(0, 16);
    assert.match(await ci(), new RegExp(`held at advisory by its rollout: 2 of 1 clean run; 2 of 4 workspaces in scope never evaluated it; not before ${notBefore}Z\n`));
    assert.equal((await s3())['enforcement-level'], 'advisory');

    // Seven days on: the rollout began a week and an hour ago, as its marker, where every runner reads it, now says.
    const description = (await s3()).description as string;
    const earlier = started.startedAt - 7 * 86_400_000 - 3_600_000;
    const edited = await world.call('PATCH', `/policies/${(await s3()).id as string}`, {
      body: { data: { type: 'policies', attributes: { description: description.replace(`.${started.startedAt}.held`, `.${earlier}.held`) } } },
    });
    assert.equal(edited.status, 200, edited.text);
    assert.match(await ci(), /policy "s3-encryption": promoted to hard-mandatory by its rollout: 2 of 1 clean run/);
    assert.equal((await s3())['enforcement-level'], 'hard-mandatory');
    assert.deepEqual(markerRollout((await s3()).description as string), { ...started, startedAt: earlier, state: 'promoted' });
  });
});

describe('a run waiting for an override', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });

  it('counts as failing where the policy failed, never as clean: the rollout holds though its clean runs are enough', async () => {
    const { world } = fixture;
    const repo = await fixture.repo(s3Repo('hard-mandatory', ROLLOUT));
    const ci = async () => {
      const run = await world.cli('--reconcile', repo, ['--state-dir', await fixture.repo({})]);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      return run.stdout;
    };
    await ci();
    await addRun(world, APP, { outcomes: { 's3-encryption': 'passed' } });
    await addRun(world, DATA, { outcomes: { 's3-encryption': 'passed' } });
    // Newer than app-prod's clean run: its evaluation ended failed, and the run waits for someone to override it.
    await addRun(world, APP, { outcomes: { 's3-encryption': 'failed' }, status: 'policy_override', 'created-at': new Date(Date.now() + 60_000).toISOString() });
    assert.match(await ci(), /held at advisory by its rollout: 2 of 2 clean runs; fails in app-prod; 2 of 4 workspaces in scope never evaluated it\n/);
    assert.equal((await world.policies()).find((p) => p.name === 's3-encryption')?.['enforcement-level'], 'advisory');
  });
});

test('the daemon holds a rollout, then promotes it on the pass after its runs are clean: /status, the log and the metrics', { timeout: 60_000 }, async (t) => {
  const emulator = await TestEmulator.start({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: captureLogs().logger });
  t.after(() => api.close());
  const repo = await tempTree(t, s3Repo('hard-mandatory', 'rollout: { start: advisory, clean-runs: 1 }\n'));
  const { daemon, get, logs } = await startTestDaemon(t, { sources: [testSource('platform', { organization: ORG, path: repo })], api });
  await daemon.whenIdle();
  const level = async () => (await emulator.policies()).find((p) => p.name === 's3-encryption')?.['enforcement-level'];
  const rollouts = async () => ((await (await get('/status')).json()) as { sources: Array<{ rollouts?: Array<{ state: string; cleanRuns: number }> }> }).sources[0]?.rollouts;
  assert.equal(await level(), 'advisory', 'created at its start level');

  daemon.trigger('platform', 'schedule');
  await daemon.whenIdle();
  assert.deepEqual((await rollouts())?.map((r) => [r.state, r.cleanRuns]), [['held', 0]]);
  const held = parseExposition(await (await get('/metrics')).text());
  assert.equal(sampleValue(held, 'policy_pool_sync_rollouts', { source: 'platform' }), 1);
  assert.match(await (await get('/status.html')).text(), /held at advisory by its rollout: 0 of 1 clean run/);

  await addRun(emulator, APP, { outcomes: { 's3-encryption': 'passed' } });
  daemon.trigger('platform', 'schedule');
  await daemon.whenIdle();
  assert.equal(await level(), 'hard-mandatory');
  assert.deepEqual((await rollouts())?.map((r) => r.state), ['promoted']);
  assert.ok(logs.lines.some((line) => line.includes('rollout promoted: policy \\"s3-encryption\\" is now hard-mandatory')), logs.lines.join('\n'));
  const metrics = parseExposition(await (await get('/metrics')).text());
  assert.equal(sampleValue(metrics, 'policy_pool_sync_rollout_promotions_total', { source: 'platform' }), 1);
  assert.equal(sampleValue(metrics, 'policy_pool_sync_rollouts', { source: 'platform' }), 0);
});
