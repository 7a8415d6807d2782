import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { githubSignature } from './helpers/webhook-signature.js';
import { firstSourceStatus as status, spawnDaemon, type LogLine } from './helpers/daemon-process.js';
import { TestEmulator, withoutMarker } from './helpers/emulator.js';
import { REQUIRE_TAGS_DESCRIPTION, REQUIRE_TAGS_LEVEL, REQUIRE_TAGS_SETTINGS, smallRepo } from './helpers/repos.js';
import { tempTree, type Tree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const NEVER = '0 0 1 1 *';

/** The emulator for the daemon under test, closed when the test ends. */
async function startApi(t: TestContext): Promise<TestEmulator> {
  const api = await TestEmulator.start();
  t.after(() => api.close());
  return api;
}

async function localDaemon(t: TestContext, schedule: string, env: NodeJS.ProcessEnv = {}, tree: Tree = smallRepo()) {
  const api = await startApi(t);
  const dir = await tempTree(t, tree);
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule }] },
    { API_TOKEN: api.token, ...env },
  );
  await waitFor('the start-up pass', async () => ((await status(daemon)).result === 'success' ? true : undefined));
  return { api, dir, daemon };
}

test('an edited local file is applied without waiting for the schedule', async (t) => {
  const { api, dir, daemon } = await localDaemon(t, NEVER);
  const progress = daemon.logs().filter((l) => l.source === 'local' && typeof l.phase === 'string');
  assert.ok(progress.some((l) => l.phase === 'applying' && /^applying \d+\/\d+/.test(String(l.msg))), 'the daemon logs the progress of its passes');
  assert.ok(progress.some((l) => l.phase === 'reading'));
  assert.equal(await api.description('require-tags'), REQUIRE_TAGS_DESCRIPTION);
  await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), 'description: Edited on disk.\n');
  // The schedule never ticks (NEVER): only the file watch can apply the edit.
  await waitFor('the edit applied', async () => ((await api.description('require-tags')) === 'Edited on disk.' ? true : undefined), 60_000);
});

test('drift made by hand through the API is repaired on the next tick', async (t) => {
  const { api, daemon } = await localDaemon(t, '* * * * * *');
  const policy = (await api.policies()).find((p) => p.name === 'require-tags');
  assert.ok(policy !== undefined);
  const response = await api.call('PATCH', `/policies/${policy.id}`, {
    body: { data: { type: 'policies', attributes: { description: 'changed by hand', 'enforcement-level': 'advisory' } } },
  });
  assert.equal(response.status, 200);
  assert.equal((await api.policies()).find((p) => p.name === 'require-tags')?.['enforcement-level'], 'advisory');
  await waitFor('the drift repaired', async () => {
    const p = (await api.policies()).find((x) => x.name === 'require-tags');
    return p?.['enforcement-level'] === REQUIRE_TAGS_LEVEL && withoutMarker(p.description) === REQUIRE_TAGS_DESCRIPTION ? true : undefined;
  }, 8_000);
  // The daemon logs the end of the pass after its last write lands, so the line may come a little after the repair.
  await waitFor('the scheduled pass that repaired the drift to log its end', () =>
    daemon.logs().find((l) => l.msg === 'pass finished' && l.trigger === 'schedule' && Number(l.drift) > 0));
});

test('overlapping triggers (schedule, file changes, webhooks) never run two passes at once', async (t) => {
  const secret = 'overlap-webhook-secret';
  const { api, dir, daemon } = await localDaemon(t, '* * * * * *', { WEBHOOK_SECRET: secret });
  // Slow API: every request takes 100 ms more, so passes are long and triggers pile up during them.
  await api.addFaults({ kind: 'latency', 'latency-ms': 100, count: 0 });
  const webhooks: Promise<Response>[] = [];
  const revisions = 8;
  const count = (...messages: string[]) => daemon.logs().filter((l: LogLine) => l.source === 'local' && messages.includes(l.msg)).length;
  let pushedDuring = 0;
  for (let i = 0; i < revisions; i += 1) {
    // Each revision lands while a pass is under way, one that started after the previous revision was pushed.
    const mark = pushedDuring;
    pushedDuring = await waitFor('a new pass under way', () => {
      const started = count('pass started');
      return started > mark && started > count('pass finished', 'pass failed') ? started : undefined;
    });
    await writeFile(path.join(dir, REQUIRE_TAGS_SETTINGS), `description: Revision ${i}.\n`);
    // Each push its own body, as real pushes have (the same body again is a replay, and triggers nothing).
    const body = JSON.stringify({ after: `revision-${i}` });
    webhooks.push(daemon.post('/webhook', body, { 'x-hub-signature-256': githubSignature(secret, body) }));
  }
  assert.ok((await Promise.all(webhooks)).every((r) => r.status === 202));
  await api.clearFaults();
  await waitFor('the last revision applied', async () => ((await api.description('require-tags')) === `Revision ${revisions - 1}.` ? true : undefined));
  const events = daemon.logs().filter((l: LogLine) => l.source === 'local' && ['pass started', 'pass finished', 'pass failed'].includes(l.msg));
  let running = 0;
  for (const event of events) {
    running += event.msg === 'pass started' ? 1 : -1;
    assert.ok(running === 0 || running === 1, `passes overlapped at ${JSON.stringify(event)}`);
  }
  const passes = events.filter((e) => e.msg === 'pass started').length;
  assert.ok(passes >= 3, `only ${passes} passes`);
  assert.ok(passes < revisions + revisions + 3, `${passes} passes: triggers were not coalesced`);
});

test('SIGTERM during an apply: no create starts after it, the pairs under way finish, what was not applied is logged, exit 0', async (t) => {
  const total = 60;
  const latencyMs = 150;
  const tree: Tree = {};
  for (let i = 0; i < total; i += 1) tree[`policies/p${i}.native`] = `main = rule { ${i} >= 0 }\n`;
  const api = await startApi(t);
  const dir = await tempTree(t, tree);
  // Slow writes: the apply of 60 create+upload pairs, two at a time, takes about 9 s.
  await api.addFaults({ kind: 'latency', method: 'POST', 'latency-ms': latencyMs, count: 0 }, { kind: 'latency', method: 'PUT', 'latency-ms': latencyMs, count: 0 });
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url, concurrency: 2 }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: NEVER }] },
    { API_TOKEN: api.token, SHUTDOWN_TIMEOUT: '20' },
  );
  await waitFor('the first policies created', async () => ((await api.policies()).length >= 4 ? true : undefined));
  // The slow POSTs' fault counts each create as it arrives; the log holds it once answered.
  const createsArrived = async () => (await api.faults()).find((f) => f.method === 'POST')?.taken ?? 0;
  const createsAnswered = async () => (await api.requests()).filter((r) => r.method === 'POST' && r.path.endsWith('/policies')).length;
  const atSignal = await waitFor('a create under way', async () => {
    const arrived = await createsArrived();
    return arrived > (await createsAnswered()) ? arrived : undefined;
  });
  daemon.child.kill('SIGTERM');
  assert.equal(await daemon.exited, 0);
  // At most 2 requests are in flight (api.concurrency); each may have let one more start in the moment before the
  // signal. Without the stop, the 50-odd creates left would all arrive.
  const afterSignal = (await createsArrived()) - atSignal;
  assert.ok(afterSignal <= 4, `${afterSignal} creates arrived after the signal, with concurrency 2`);
  assert.ok(!daemon.logs().some((l) => /did not finish in time/.test(l.msg)), 'the changes under way finished by themselves, within the shutdown timeout');

  const policies = await api.policies();
  assert.ok(policies.length < total, 'the apply stopped before its end');
  assert.deepEqual(policies.filter((p) => p.code === null).map((p) => p.name), [], 'every policy created has its code');
  const notApplied = daemon.logs().find((l) => l.msg === 'shutdown: changes not applied (the next pass applies them)');
  assert.ok(notApplied !== undefined, 'the changes not applied are logged');
  assert.equal(notApplied['count'], total - policies.length);
  assert.ok((notApplied['notApplied'] as string[]).every((c) => /^create policy "p\d+"$/.test(c)));
  const messages = daemon.logs().map((l) => l.msg);
  assert.ok(messages.indexOf('pass failed') > messages.indexOf('shutting down: no new triggers or changes; finishing the changes under way'));
  assert.equal(messages.at(-1), 'daemon stopped');
});

test('SIGTERM during a write stuck on a slow answer: the wait is bounded by SHUTDOWN_TIMEOUT, then the pass is aborted, exit 0', async (t) => {
  const api = await startApi(t);
  const dir = await tempTree(t, smallRepo());
  // Every create's answer takes 30 s: the start-up pass reads, then cannot finish its writes any time soon. (A pass
  // that is still reading has no write under way, and ends at the SIGTERM itself: daemon-api-unreachable.test.ts.)
  await api.addFaults({ kind: 'latency', method: 'POST', 'latency-ms': 30_000, count: 0 });
  const daemon = await spawnDaemon(
    t,
    { api: { url: api.url }, sources: [{ name: 'local', organization: 'example-org', path: dir, schedule: NEVER }] },
    { API_TOKEN: api.token, SHUTDOWN_TIMEOUT: '1' },
  );
  await waitFor('a create held by the slow answer', async () => (((await api.faults())[0]?.taken ?? 0) > 0 ? true : undefined));
  daemon.child.kill('SIGTERM');
  assert.equal(await daemon.exited, 0);
  // The 30 s answers are never waited for: the shutdown timeout ends the wait and aborts the pass.
  assert.ok(daemon.logs().some((l) => /did not finish in time; aborting it/.test(String(l.msg))), 'the abort is logged');
  // (A write the emulator got still does its work, as a server's would: its answer came after the daemon had gone.)
  const answered = (await api.requests()).filter((r) => r.method === 'POST' && r.status !== null);
  assert.deepEqual(answered, [], 'no create was answered before the daemon stopped');
});

test('api.url embedded: the daemon syncs the example repo into the in-process emulator and says so loudly', async (t) => {
  const daemon = await spawnDaemon(t, {
    api: { url: 'embedded' },
    sources: [{ name: 'example', organization: 'example-org', path: 'examples/declared', schedule: NEVER }],
  });
  const warning = daemon.logs().find((l) => l.level === 40 && /NOTHING REAL IS CHANGED/.test(l.msg));
  assert.ok(warning !== undefined, 'a warning says nothing real is changed');
  const done = await waitFor('the start-up pass', async () => {
    const s = await status(daemon);
    return s.result !== null ? s : undefined;
  });
  assert.equal(done.result, 'success', done.error ?? '');
  assert.equal(done.driftCount, 6, 'five policies and one agent pool created');
  daemon.child.kill('SIGINT');
  assert.equal(await daemon.exited, 0);
});
