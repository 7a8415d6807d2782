import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { SourceStatus } from '../src/daemon/index.js';
import { HISTORY_LENGTH, MAX_LISTED_CHANGES } from '../src/operations/pass-record.js';
import { silentLogger } from '../src/logger.js';
import type { PolicyChange } from '../src/plan/types.js';
import type { PassOutcome } from '../src/reconcile.js';
import { TestEmulator } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';
import { recordingPass, startTestDaemon, testSource } from './helpers/daemon-harness.js';
import type { Reconcile } from '../src/daemon/index.js';

async function statusBody(get: (p: string) => Promise<Response>, path = '/status'): Promise<SourceStatus[]> {
  const response = await get(path);
  assert.equal(response.status, 200);
  return ((await response.json()) as { sources: SourceStatus[] }).sources;
}

test('/status shows the last pass: revision, times, changes with outcomes, warnings; the daemon logs a new plan warning once', async (t) => {
  const emulator = await TestEmulator.start();
  t.after(() => emulator.close());
  const handMade = await fetch(`${emulator.url}/organizations/example-org/policies`, {
    method: 'POST',
    headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/vnd.api+json' },
    body: JSON.stringify({ data: { type: 'policies', attributes: { name: 'made-by-hand', kind: 'native', 'enforcement-level': 'advisory' } } }),
  });
  assert.ok(handMade.ok, `seeding a hand-made policy: ${handMade.status}`);
  const dir = await tempTree(t, smallRepo());
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger() });
  t.after(() => api.close());
  const { get, daemon, logs } = await startTestDaemon(t, { sources: [testSource('main', { path: dir, ownership: 'organization' })], api });
  await waitFor('the start-up pass', async () => ((await statusBody(get))[0]?.lastPass?.result === 'success' ? true : undefined));

  const [first] = await statusBody(get);
  const pass = first?.lastPass;
  assert.ok(pass !== undefined && pass !== null);
  assert.equal(pass.trigger, 'start-up');
  assert.equal(pass.revision, null, 'a local folder has no revision');
  // The duration is the loop's own measure; the times are read by the runner in the same synchronous steps, so they
  // agree but for the moments between those reads. The pass created 5 policies with their code: it took time.
  const between = Date.parse(pass.finishedAt) - Date.parse(pass.startedAt);
  assert.ok(pass.durationMs > 0 && Math.abs(pass.durationMs - between) <= 20, `durationMs ${pass.durationMs}, ${between} ms between the times`);
  assert.equal(pass.drift, 5);
  assert.deepEqual(
    pass.changes.map((c) => [c.action, c.resource, c.name, c.outcome, c.message]),
    [
      ['create', 'policy', 'audit-only', 'applied', null],
      ['create', 'policy', 'deny-public', 'applied', null],
      ['create', 'policy', 'limit-size', 'applied', null],
      ['create', 'policy', 'require-tags', 'applied', null],
      ['create', 'agent-pool', 'build', 'applied', null],
    ],
  );
  assert.equal(pass.changes[0]?.reason, 'not in the live state');
  assert.equal(pass.changesOmitted, 0);
  assert.deepEqual(pass.warnings, ['not declared and kept because prune is off: policy "made-by-hand"']);
  assert.deepEqual(pass.errors, []);
  assert.equal(first?.lastSuccessAt !== null && Date.parse(first?.lastSuccessAt ?? '') >= Date.parse(pass.startedAt), true);
  assert.ok(first?.nextRunAt !== null, 'the next scheduled run');
  assert.equal(first?.history, undefined, 'no history unless asked for');

  const warningLines = () => logs.text().trim().split('\n').map((l) => JSON.parse(l) as { msg: string; level: number; warning?: string }).filter((l) => l.msg === 'plan warning');
  assert.deepEqual(warningLines().map((l) => [l.level, l.warning]), [[40, 'not declared and kept because prune is off: policy "made-by-hand"']]);

  daemon.trigger('main', 'schedule');
  await waitFor('the second pass', async () => ((await statusBody(get))[0]?.lastPass?.trigger === 'schedule' ? true : undefined));
  const [second] = await statusBody(get, '/status?history=1');
  assert.equal(second?.lastPass?.drift, 0);
  assert.deepEqual(second?.lastPass?.changes, []);
  assert.deepEqual(second?.history?.map((p) => [p.trigger, p.drift]), [['schedule', 0], ['start-up', 5]], 'newest first');
  assert.equal(warningLines().length, 1, 'an unchanged warning is not logged again at warn');
});

/** A pass whose plan has `count` policy deletes; the first fails, and the plan is refused when `refused`. */
function bigPlanPass(count: number, refused = false): Reconcile {
  return async (request) => {
    const changes: PolicyChange[] = Array.from({ length: count }, (_, i) => ({
      resource: 'policy', name: `p${String(i).padStart(3, '0')}`, id: `pol-${i}`, action: 'delete', reason: 'not declared, prune is on',
      fields: {}, declared: null, live: null, uploadCode: false, adoptMarker: false,
    }));
    const header = { name: request.source.name, organization: request.source.organization, revision: request.revision };
    const errors = refused ? [`${count} deletions exceed max-deletes 10; nothing was applied (use --force to allow)`] : ['delete policy "p000" failed: 500'];
    const results = refused ? [] : changes.map((change, i) => ({ change, outcome: i === 0 ? ('failed' as const) : ('applied' as const), message: i === 0 ? '500' : null }));
    const outcome: PassOutcome = { sourcePlan: { ...header, plan: { changes, warnings: [], errors } }, results, ok: false };
    return outcome;
  };
}

test('a pass lists at most 100 changes with a count beyond; a refused plan lists its changes as not applied', async (t) => {
  let refused = false;
  const big = bigPlanPass(130);
  const refusedPass = bigPlanPass(12, true);
  const pass: Reconcile = (request, trigger) => (refused ? refusedPass(request, trigger) : big(request, trigger));
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass });
  await daemon.whenIdle();
  const last = (await statusBody(get))[0]?.lastPass;
  assert.equal(last?.result, 'failure');
  assert.equal(last?.drift, 130);
  assert.equal(last?.changes.length, MAX_LISTED_CHANGES);
  assert.equal(last?.changesOmitted, 30);
  assert.deepEqual([last?.changes[0]?.outcome, last?.changes[0]?.message, last?.changes[1]?.outcome], ['failed', '500', 'applied']);
  assert.deepEqual(last?.errors, ['delete policy "p000" failed: 500']);

  refused = true;
  daemon.trigger('main', 'schedule');
  await daemon.whenIdle();
  const [status] = await statusBody(get);
  assert.equal(status?.lastPass?.changes.length, 12);
  assert.ok(status?.lastPass?.changes.every((c) => c.outcome === 'not-applied'));
  assert.match(status?.lastPass?.errors[0] ?? '', /exceed max-deletes/);
  assert.match(status?.error ?? '', /exceed max-deletes/);
});

test(`/status?history=1 keeps the last ${HISTORY_LENGTH} passes; a pass that never reached a plan is recorded with its error`, async (t) => {
  let n = 0;
  const { pass } = recordingPass(() => (n += 1) % 2 === 0);
  const { get, daemon } = await startTestDaemon(t, { sources: [testSource('main', { path: await tempTree(t) })], pass });
  for (let i = 0; i < HISTORY_LENGTH + 4; i += 1) {
    await daemon.whenIdle();
    daemon.trigger('main', 'webhook');
  }
  await daemon.whenIdle();
  const [status] = await statusBody(get, '/status?history=1');
  assert.equal(status?.history?.length, HISTORY_LENGTH);
  assert.deepEqual(status?.history?.[0], status?.lastPass);
  const failed = status?.history?.find((p) => p.result === 'failure');
  assert.equal(failed?.drift, null, 'no plan, no drift figure');
  assert.deepEqual(failed?.errors, ['declared repo is invalid']);
  assert.equal(failed?.error, 'declared repo is invalid');
  const times = (status?.history ?? []).map((p) => Date.parse(p.finishedAt));
  assert.deepEqual(times, [...times].sort((a, b) => b - a), 'newest first');
});
