/**
 * The findings of finished runs kept in the state dir: a second reader (a daemon after a restart) reads a finished run
 * from the file, sending no outcome request; a run under way is never kept; the file stays under its byte bound,
 * keeping the runs used last; a corrupt file, or one whose entry names an id of the wrong shape, is an empty cache with
 * a warning; without persistence nothing is written; the daemon keeps it across its passes.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it, test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { readEvidence } from '../src/api/evidence.js';
import { openEvidenceCacheStore } from '../src/live/evidence-cache-file.js';
import { silentLogger } from '../src/logger.js';
import { organizationFileName, stateDirLayout } from '../src/state-dir.js';
import type { Seed } from '../src/emulator/index.js';
import { startApiFixture, TOKEN, type ApiFixture } from './helpers/api-fixture.js';
import { stateSeal, withoutSeal } from '../src/state-seal.js';
import { captureLogs } from './helpers/logs.js';
import { startTestDaemon, testSource } from './helpers/daemon-harness.js';
import { ORG as DAEMON_ORG, TestEmulator } from './helpers/emulator.js';
import { EVIDENCE_WORKSPACES, s3Repo } from './helpers/evidence.js';
import { tempTree } from './helpers/temp-tree.js';

const ORG = 'acme';
const SEAL = stateSeal('cache-test-token', 'http://127.0.0.1/api/v2');
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const at = (hoursAgo: number): string => new Date(NOW - hoursAgo * 3_600_000).toISOString();
const WORKSPACES = [{ id: 'ws-one', name: 'one' }, { id: 'ws-two', name: 'two' }];

function seed(): Seed {
  const outcomes = [{ policy: 'deny-public', set: 'base', status: 'passed' as const }];
  return {
    token: TOKEN,
    rateLimit: 0,
    organizations: [{
      name: ORG,
      workspaces: WORKSPACES,
      runs: [
        ...[1, 2, 3].flatMap((hours) => WORKSPACES.map((ws) => ({ workspace: ws.id, createdAt: at(hours), outcomes }))),
        { workspace: 'ws-one', createdAt: at(0.5), status: 'post_plan_running', outcomes },
        // Waiting for an override: its evaluation ended failed, but it may still turn overridden.
        { workspace: 'ws-two', createdAt: at(0.5), status: 'policy_override', outcomes: [{ policy: 'deny-public', set: 'base', status: 'failed' as const }] },
      ],
    }],
  };
}

describe('the evidence cache in the state dir', () => {
  let f: ApiFixture;
  const read = (cache: Awaited<ReturnType<ReturnType<typeof openEvidenceCacheStore>['forOrganization']>>) =>
    readEvidence(f.client.runs, { organization: ORG, workspaces: WORKSPACES, policies: ['deny-public'], now: () => NOW, cache });
  before(async () => (f = await startApiFixture(seed(), {}, () => NOW)));
  after(() => f.close());

  it('is read after a restart: finished runs cost no request, the run under way is read again', async () => {
    const first = openEvidenceCacheStore({ stateDir: f.tempDir, logger: silentLogger(), seal: SEAL, persist: true });
    const cold = await read(await first.forOrganization(ORG));
    // The organization's list, and one request per run: its policy check (the set 'base' is a Sentinel set that is not
    // agent-enabled), whose list answers the check's status too, under way or not.
    assert.deepEqual([cold.requests, cold.cachedRuns], [1 + 6 + 2, 0]);
    const waiting = cold.policies[0]?.workspaces[1]?.latest;
    assert.deepEqual([waiting?.createdAt, waiting?.outcome, waiting?.finished], [at(0.5), 'failed', false]);
    await first.save();
    await f.emulator.clearRequests();
    const second = openEvidenceCacheStore({ stateDir: f.tempDir, logger: silentLogger(), seal: SEAL, persist: true });
    const warm = await read(await second.forOrganization(ORG));
    assert.deepEqual([warm.requests, warm.cachedRuns], [1 + 2, 6]);
    const paths = (await f.emulator.requests()).map((request) => request.path.split('?')[0] ?? '');
    assert.deepEqual(paths.map((p) => p.replace(/run-[A-Za-z0-9_-]+/, 'RUN')).sort(), ['/organizations/acme/runs', '/runs/RUN/policy-checks', '/runs/RUN/policy-checks']);
    assert.deepEqual(warm.policies, cold.policies);
  });

  it('stays under its byte bound, keeping the runs used last', async () => {
    const stateDir = path.join(f.tempDir, 'bounded');
    const store = openEvidenceCacheStore({ stateDir, logger: silentLogger(), seal: SEAL, persist: true, maxBytes: 1_200 });
    const cache = await store.forOrganization(ORG);
    await read(cache);
    await store.save();
    const file = path.join(stateDirLayout(stateDir).evidenceCache, organizationFileName(ORG));
    const text = await readFile(file, 'utf8');
    assert.ok(Buffer.byteLength(text) <= 1_200, `${Buffer.byteLength(text)} bytes`);
    const kept = (JSON.parse(withoutSeal(text)) as { runs: Array<{ runId: string }> }).runs.map((run) => run.runId);
    const used = [...cache.entries()].map((run) => run.runId);
    assert.ok(kept.length > 0 && kept.length < used.length);
    assert.deepEqual(kept, used.slice(-kept.length));
  });

  it('ignores a corrupt file, and one whose entry names an id of the wrong shape, with a warning', async () => {
    const stateDir = path.join(f.tempDir, 'hostile');
    const folder = stateDirLayout(stateDir).evidenceCache;
    await mkdir(folder, { recursive: true });
    const file = path.join(folder, organizationFileName(ORG));
    const entry = { runId: 'run-../../x', workspaceId: 'ws-one', createdAt: at(1), status: 'applied', finished: true, evaluations: [], outcomes: [], setErrors: [] };
    for (const text of ['{"format":', JSON.stringify({ format: 'policy-pool-sync evidence cache', version: 1, organization: ORG, runs: [entry] })]) {
      await writeFile(file, SEAL.seal({ purpose: 'evidence cache', owner: ORG }, text));
      const { logger, lines } = captureLogs();
      const cache = await openEvidenceCacheStore({ stateDir, logger, seal: SEAL, persist: true }).forOrganization(ORG);
      assert.equal(cache.size, 0);
      assert.ok(lines.some((line) => line.includes('the evidence cache file is corrupt')), lines.join('\n'));
    }
  });

  it('writes nothing without persistence', async () => {
    const stateDir = path.join(f.tempDir, 'cold');
    const store = openEvidenceCacheStore({ stateDir, logger: silentLogger(), seal: SEAL, persist: false });
    await read(await store.forOrganization(ORG));
    await store.save();
    await assert.rejects(readdir(stateDir), { code: 'ENOENT' });
  });
});

test('the daemon reads a finished run once across its passes, and keeps it in its state dir', { timeout: 60_000 }, async (t) => {
  const emulator = await TestEmulator.start({ organizations: [{ name: DAEMON_ORG, maxAgentPools: 1, workspaces: EVIDENCE_WORKSPACES }] });
  t.after(() => emulator.close());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: captureLogs().logger });
  t.after(() => api.close());
  const stateDir = await mkdtemp(path.join(tmpdir(), 'pps-evidence-state-'));
  t.after(() => rm(stateDir, { recursive: true, force: true }));
  // A rollout held until more clean runs than there will be: every pass reads the runs.
  const repo = await tempTree(t, s3Repo('hard-mandatory', 'rollout: { start: advisory, clean-runs: 5 }\n'));
  const { daemon } = await startTestDaemon(t, { sources: [testSource('platform', { organization: DAEMON_ORG, path: repo })], api, stateDir });
  await daemon.whenIdle();
  const added = await emulator.control('POST', '/runs', { workspace: EVIDENCE_WORKSPACES[0]?.id, outcomes: { 's3-encryption': 'passed' } });
  assert.equal(added.status, 200, added.text);
  // The set is a Sentinel set that is not agent-enabled: a run's findings are its policy check.
  const outcomeReads = async (): Promise<number> => (await emulator.requests()).filter((request) => request.path.includes('/policy-checks')).length;
  for (const expected of [1, 0]) {
    await emulator.clearRequests();
    daemon.trigger('platform', 'schedule');
    await daemon.whenIdle();
    assert.equal(await outcomeReads(), expected);
  }
  const files = await readdir(stateDirLayout(stateDir).evidenceCache);
  assert.deepEqual(files, [organizationFileName(DAEMON_ORG)]);
});
