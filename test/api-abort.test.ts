import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';

/**
 * Aborts after `ms`; resolves with what the call rejected with. Each case makes the call unable to end on its own
 * before a minute has passed (an answer held back, retries without end, a rate limit), so a call that ends with the
 * abort's reason ended because of the abort: no bound on time is needed.
 */
async function abortAfter(ms: number, run: (signal: AbortSignal) => Promise<unknown>): Promise<{ error: unknown }> {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('pass timed out (test)')), ms);
  const error = await run(controller.signal).then(() => assert.fail('expected the abort to end the call'), (e: unknown) => e);
  return { error };
}

describe('a signal ends every request of a client view', () => {
  let f: ApiFixture;
  before(async () => {
    f = await startApiFixture();
  });
  afterEach(async () => {
    await f.emulator.clearFaults();
    await f.emulator.setRateLimit(0);
  });
  after(async () => {
    await f.close();
  });

  it('a request on the wire', async () => {
    await f.emulator.addFaults({ kind: 'latency', method: 'GET', path: '/policies$', 'latency-ms': 120_000, count: 1 });
    const { error } = await abortAfter(200, (signal) => f.client.withSignal(signal).listPolicies('acme'));
    assert.match(String(error), /pass timed out \(test\)/);
  });

  it('the back-off between retries of a failing list', async () => {
    await f.emulator.addFaults({ kind: 'status', method: 'GET', path: '/policies$', status: 503, count: 0 });
    const { error } = await abortAfter(300, (signal) => f.client.withSignal(signal).listPolicies('acme'));
    assert.match(String(error), /pass timed out \(test\)/, 'the abort, not the exhausted retries');
  });

  it('the wait for the rate limit, and the download', async () => {
    await f.emulator.setRateLimit(1);
    const policy = (await f.client.listPolicies('acme'))[0];
    const view = (signal: AbortSignal) => f.client.withSignal(signal);
    const { error } = await abortAfter(300, (signal) =>
      Promise.all([view(signal).listPolicies('acme'), view(signal).listAgentPools('acme'), ...(policy ? [view(signal).downloadPolicy(policy)] : [])]));
    assert.match(String(error), /pass timed out \(test\)/);
  });

  it('the client itself is untouched by a view\'s signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await assert.rejects(f.client.withSignal(controller.signal).listPolicies('acme'), /gone/);
    assert.ok(Array.isArray(await f.client.listPolicies('acme')));
  });
});
