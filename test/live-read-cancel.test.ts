/** One failing read of a pass ends the others at once: those in flight are aborted, those waiting are never sent. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { silentLogger } from '../src/logger.js';
import { ORG, TestEmulator } from './helpers/emulator.js';
import { waitFor } from './helpers/wait.js';
import { useWorld } from './helpers/world.js';

const POLICIES = 20;
/** Long enough that a run waiting for a download could not end before it is answered, however busy the machine; never waited for. */
const LATENCY_MS = 15_000;

describe('a failing live read', () => {
  const fixture = useWorld();

  it('aborts the slow downloads in flight, sends none after it, and the pass ends at once', async () => {
    const { world } = fixture;
    const tree: Record<string, string> = { 'agent-pools/build.yaml': 'agent-cleanup: {statuses: [errored], after: 1h}\n' };
    for (let i = 0; i < POLICIES; i += 1) tree[`policies/p-${String(i).padStart(2, '0')}.native`] = `main = rule { ${i} > -1 }\n`;
    const dir = await fixture.repo(tree);
    const created = await world.cli('--reconcile', dir);
    assert.equal(created.code, 0, created.stderr);

    // Every code download is slow; the pool's agent list fails, and is asked for while the downloads are under way.
    await world.addFaults(
      { kind: 'latency', method: 'GET', path: '^/policies/[^/]+/download$', 'latency-ms': LATENCY_MS, count: 0 },
      { kind: 'status', method: 'GET', path: '^/agent-pools/[^/]+/agents$', status: 400, count: 1 },
    );
    await world.clearRequests();
    const run = await world.spawnCli('--dry-run', dir, ['--no-cache']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    // The error is said once, in the plan on stdout (stderr repeats it only for a plan written to a file or as JSON).
    assert.match(run.stdout + run.stderr, /agents/);

    const failed = (await world.requests()).find((r) => /^\/agent-pools\/[^/]+\/agents/.test(r.path));
    assert.equal(failed?.status, 400);

    // The process has ended, so it sends nothing more; the latency fault counts every download that arrived, and
    // each of those is logged unanswered once its connection is gone.
    const [slow] = await world.faults();
    const sent = slow?.taken ?? 0;
    assert.ok(sent > 0 && sent <= 8, `only the downloads in flight at the failure were sent: ${sent} of ${POLICIES}`);
    const requests = await waitFor('every download sent to be logged unanswered', async () => {
      const log = await world.requests();
      return log.filter((r) => /\/download$/.test(r.path)).length === sent ? log : undefined;
    });
    assert.deepEqual(requests.filter((r) => /\/download$/.test(r.path)).map((r) => r.status), Array(sent).fill(null), 'the run ended before any download was answered: it waited for none of them');
    assert.deepEqual(requests.filter((r) => r.path.includes('/_emulator/blobs/')).map((r) => r.path), [], 'no download went on to its code');
  });
});

describe('the reach of a pass', () => {
  it('counts the requests of a client derived from the pass\'s, for /readyz', async (t) => {
    const emulator = await TestEmulator.start();
    t.after(() => emulator.close());
    const closed = await TestEmulator.start();
    const refused = closed.url;
    await closed.close();
    for (const [url, reached] of [[emulator.url, true], [refused, false]] as const) {
      const client = new ApiClient({ baseUrl: url, token: emulator.token, logger: silentLogger(), maxRetries: 0 });
      t.after(() => client.close());
      const pass = new AbortController();
      const derived = client.withSignal(pass.signal).withSignal(new AbortController().signal);
      await derived.listPolicies(ORG).catch(() => undefined);
      assert.equal(client.reached(pass.signal), reached, url);
    }
  });
});
