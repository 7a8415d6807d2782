import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Policy } from '../src/api/types.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';
import { waitFor } from './helpers/wait.js';

const REASON = /pass timed out \(test\)/;

/**
 * Starts `run`, aborts it once `ready` says the calls are where the test wants them (on the wire, in a back-off, waiting
 * for the rate limit), and resolves with how each call ended. Each case makes the calls unable to end on their own
 * before a minute has passed (an answer held back, retries without end, a rate limit), so a call that ends with the
 * abort's reason ended because of the abort: no bound on time is needed.
 */
async function abortWhen(ready: () => Promise<boolean>, run: (signal: AbortSignal) => Array<Promise<unknown>>): Promise<PromiseSettledResult<unknown>[]> {
  const controller = new AbortController();
  const settled = Promise.allSettled(run(controller.signal));
  await waitFor('the calls to be under way', async () => ((await ready()) ? true : undefined));
  controller.abort(new Error('pass timed out (test)'));
  return settled;
}

function assertAborted(results: PromiseSettledResult<unknown>[]): void {
  for (const result of results) {
    assert.equal(result.status, 'rejected', 'expected the abort to end the call');
    assert.match(String((result as PromiseRejectedResult).reason), REASON);
  }
}

describe('a signal ends every request of a client view', () => {
  let f: ApiFixture;
  let policy: Policy;
  before(async () => {
    f = await startApiFixture();
    const input = { name: 'held-back', kind: 'native' as const, description: null, enforcementLevel: 'advisory' as const, query: null, policySetIds: [] };
    const created = await f.client.createPolicy('acme', input);
    policy = (await f.client.uploadPolicy(created.id, Buffer.from('main = rule { true }\n'))) ?? created;
  });
  afterEach(async () => {
    await f.emulator.clearFaults();
    await f.emulator.setRateLimit(0);
  });
  after(async () => {
    await f.close();
  });

  const taken = async (method: string) => (await f.emulator.faults()).find((fault) => fault.method === method)?.taken ?? 0;

  it('a request on the wire', async () => {
    await f.emulator.addFaults({ kind: 'latency', method: 'GET', path: '/policies$', 'latency-ms': 120_000, count: 1 });
    const results = await abortWhen(async () => (await taken('GET')) === 1, (signal) => [f.client.withSignal(signal).listPolicies('acme')]);
    assertAborted(results);
  });

  it('the back-off between retries of a failing list', async () => {
    await f.emulator.addFaults({ kind: 'status', method: 'GET', path: '/policies$', status: 503, count: 0 });
    await f.emulator.clearRequests();
    // A 503 answered: the client waits before it sends the list again.
    const answered = async () => (await f.emulator.requests()).some((r) => r.status === 503);
    const results = await abortWhen(answered, (signal) => [f.client.withSignal(signal).listPolicies('acme')]);
    assertAborted(results);
  });

  it('the wait for the rate limit, and the download', async () => {
    await f.emulator.setRateLimit(1);
    // The download is held on the wire; of the two lists, one at least waits for the rate limit (1 a second).
    await f.emulator.addFaults({ kind: 'latency', method: 'GET', path: '/download$', 'latency-ms': 120_000, count: 1 });
    const view = (signal: AbortSignal) => f.client.withSignal(signal);
    const results = await abortWhen(async () => (await taken('GET')) === 1, (signal) =>
      [view(signal).downloadPolicy(policy), view(signal).listPolicies('acme'), view(signal).listAgentPools('acme')]);
    assertAborted(results);
  });

  it('the client itself is untouched by a view\'s signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await assert.rejects(f.client.withSignal(controller.signal).listPolicies('acme'), /gone/);
    assert.deepEqual((await f.client.listPolicies('acme')).map((p) => p.id), [policy.id]);
  });
});
