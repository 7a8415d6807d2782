import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { CreatePolicyInput } from '../src/api/types.js';
import { ApiError } from '../src/errors.js';
import { startApiFixture, testSeed, type ApiFixture } from './helpers/api-fixture.js';
import { captureLogs } from './helpers/logs.js';
import { runCli } from './helpers/cli.js';
import { ORG } from './helpers/emulator.js';
import { smallRepo } from './helpers/repos.js';
import { VirtualClock } from './helpers/virtual-clock.js';
import { useWorld } from './helpers/world.js';

function policyInput(name: string): CreatePolicyInput {
  return { name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] };
}

/**
 * The client's waits and the emulator's timed faults run on one virtual clock: a minute of back-off or a 6 s
 * outage pass at once, and the figures below are the time a real run would take, whatever the machine's speed.
 */
describe('bounded waits under 429 and 5xx', { timeout: 30_000 }, () => {
  let f: ApiFixture;
  let clock: VirtualClock;
  let policyId: string;
  before(async () => {
    clock = new VirtualClock({ autoAdvance: true });
    f = await startApiFixture(testSeed(), { clock }, () => clock.now());
    policyId = (await f.client.createPolicy('acme', policyInput('budget-target'))).id;
    await f.emulator.clearRequests();
  });
  afterEach(async () => {
    await f.emulator.clearFaults();
    await f.emulator.clearRequests();
  });
  after(async () => { await f.close(); });

  /** Runs `work`, resolving with what it settled with and the virtual milliseconds it took. */
  async function timed<T>(work: () => Promise<T>): Promise<{ result: PromiseSettledResult<T>; ms: number }> {
    const started = clock.now();
    const [result] = await Promise.allSettled([work()]);
    return { result: result!, ms: clock.now() - started };
  }

  it('a 429 announcing a reset of 100,000,000 s waits at most 60 s, once', async () => {
    await f.emulator.addFaults({ kind: 'status', status: 429, method: 'GET', path: '^/policies/', headers: { 'x-ratelimit-reset': '100000000' } });
    const { result, ms } = await timed(() => f.client.getPolicy(policyId));
    assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
    assert.ok(ms >= 60_000 && ms < 61_000, `waited ${ms} ms`);
    assert.deepEqual((await f.emulator.requests()).map((r) => r.status), [429, 200]);
  });

  it('40 429s in a row announcing a reset of 0.0 are waited through (at least 100 ms each, backing off): only the budget ends the waits', async () => {
    await f.emulator.addFaults({ kind: 'status', status: 429, method: 'GET', path: '^/policies/', count: 40, headers: { 'x-ratelimit-reset': '0.0' } });
    const { result, ms } = await timed(() => f.client.getPolicy(policyId));
    assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
    assert.equal((await f.emulator.requests()).filter((r) => r.status === 429).length, 40);
    assert.ok(ms >= 100 + 200 + 400 + 800 + 36 * 1000 && ms < 60_000, `waited ${ms} ms`);
  });

  it('x-ratelimit-limit: 0.01 paces at one request a second, not one per 100 s', async () => {
    // A client of its own: the limit it learns here would pace the other tests.
    const { logger } = captureLogs();
    const paced = new ApiClient({ baseUrl: f.emulator.url, token: f.emulator.token, logger, clock });
    try {
      await f.emulator.addFaults({ kind: 'headers', method: 'GET', path: '^/policies/', headers: { 'x-ratelimit-limit': '0.01' }, count: 0 });
      await paced.getPolicy(policyId); // learns the announced limit
      const { result, ms } = await timed(async () => {
        for (let i = 0; i < 5; i += 1) await paced.getPolicy(policyId);
      });
      assert.equal(result.status, 'fulfilled');
      assert.ok(ms >= 4_000 && ms < 7_000, `5 requests took ${ms} ms`);
    } finally {
      await paced.close();
    }
  });

  it('a 6 s outage of 503s is ridden out by back-off', async () => {
    await f.emulator.addFaults({ kind: 'status', status: 503, 'duration-ms': 6_000 });
    const { result, ms } = await timed(() => f.client.getPolicy(policyId));
    assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
    assert.ok(ms >= 6_000, `${ms} ms`);
    const statuses = (await f.emulator.requests()).map((r) => r.status);
    assert.equal(statuses.at(-1), 200);
    assert.ok(statuses.slice(0, -1).every((s) => s === 503) && statuses.length <= 12, statuses.join(' '));
  });

  it('an outage longer than the budget fails after about 60 s, naming the request, the tries and the budget', async () => {
    await f.emulator.addFaults({ kind: 'status', status: 502, 'duration-ms': 3_600_000 });
    const { result, ms } = await timed(() => f.client.getPolicy(policyId));
    assert.equal(result.status, 'rejected');
    const error = (result as PromiseRejectedResult).reason as unknown;
    assert.ok(error instanceof ApiError, String(error));
    assert.match(error.message, new RegExp(`^GET /policies/${policyId} failed: 502 .*; gave up after \\d+ tries over 60 s \\(api\\.retry-budget: 60 s\\)$`));
    assert.ok(ms >= 59_000 && ms < 60_001, `${ms} ms`);
    assert.ok((await f.emulator.requests()).length < 20, 'backed off exponentially');
  });

  it('the budget is configurable', async () => {
    const { logger } = captureLogs();
    const brief = new ApiClient({ baseUrl: f.emulator.url, token: f.emulator.token, logger, clock, retryBudgetMs: 10_000 });
    try {
      await f.emulator.addFaults({ kind: 'drop', method: 'GET', path: '^/policies/', 'duration-ms': 3_600_000 });
      const { result, ms } = await timed(() => brief.getPolicy(policyId));
      assert.equal(result.status, 'rejected');
      assert.match(String((result as PromiseRejectedResult).reason), /failed: .*; gave up after \d+ tries over 10 s \(api\.retry-budget: 10 s\)$/);
      assert.ok(ms >= 9_000 && ms < 10_001, `${ms} ms`);
    } finally {
      await brief.close();
    }
  });

  it('a create during a 6 s outage is looked for, then sent again, and made once', async () => {
    await f.emulator.addFaults({ kind: 'status', status: 503, method: 'POST', 'duration-ms': 6_000 });
    const { result } = await timed(() => f.client.createPolicy('acme', policyInput('made-after-outage')));
    assert.equal(result.status, 'fulfilled', String((result as PromiseRejectedResult).reason));
    assert.equal((await f.client.listPolicies('acme', { search: 'made-after-outage' })).length, 1);
  });

  it('429 to every create: 60 creates end within about two minutes, each with an error naming it and the budget', async () => {
    await f.emulator.addFaults({ kind: 'status', status: 429, method: 'POST', count: 0 });
    const names = Array.from({ length: 60 }, (_, i) => `refused-${i}`);
    const started = clock.now();
    const results = await Promise.allSettled(names.map((name) => f.client.createPolicy('acme', policyInput(name))));
    const ms = clock.now() - started;
    assert.ok(ms < 120_000, `took ${Math.round(ms / 1000)} s`);
    for (const result of results) {
      assert.equal(result.status, 'rejected');
      const error = result.reason as unknown;
      assert.ok(error instanceof ApiError && error.status === 429, String(error));
      assert.match(error.message, /^POST \/organizations\/acme\/policies failed: 429 .*(still rate limited after waiting|the API has answered nothing but 429 for) \d+(\.\d)? s \(api\.retry-budget: 60 s\)$/);
    }
    assert.equal((await f.client.listPolicies('acme', { search: 'refused-' })).length, 0);
  });
});

describe('--reconcile against a server refusing every write, with api.retry-budget set', { timeout: 30_000 }, () => {
  const fixture = useWorld();
  it('ends within the budget, exit 1, naming each change that was not made', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(smallRepo());
    const config = path.join(await fixture.repo({}), 'config.yaml');
    await writeFile(config, `api: { url: "${world.url}", retry-budget: 1 }\nsources:\n  - { name: main, organization: ${ORG}, path: "${dir}" }\nstate-dir: "${world.stateDir}"\n`);
    await world.addFaults({ kind: 'status', status: 429, method: 'POST', count: 0 });
    const run = await runCli(['--reconcile', '--config', config], { env: { API_TOKEN: world.token, LOG_LEVEL: 'error' } });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const output = run.stdout + run.stderr;
    for (const name of ['require-tags', 'limit-size', 'audit-only', 'deny-public']) {
      assert.match(output, new RegExp(`${name}[^\\n]*\\n?[^\\n]*failed: 429 .*\\(api\\.retry-budget: 1 s\\)`), `${name} named:\n${output}`);
    }
    assert.deepEqual(await world.policies(), []);
  });
});
