import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { CreatePolicyInput, Policy } from '../src/api/types.js';
import { NetworkError } from '../src/errors.js';
import { rejectsWithStatus } from './helpers/api-assert.js';
import { at } from './helpers/api-documents.js';
import { startApiFixture, testSeed, type ApiFixture } from './helpers/api-fixture.js';
import { captureLogs } from './helpers/logs.js';
import { VirtualClock } from './helpers/virtual-clock.js';
import { waitFor } from './helpers/wait.js';

function policyInput(name: string): CreatePolicyInput {
  return { name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] };
}

async function policiesNamed(f: ApiFixture, name: string): Promise<number> {
  const listed = await f.emulator.call('GET', `/organizations/acme/policies?search%5Bname%5D=${name}&page%5Bsize%5D=100`);
  return (at(listed.json, 'data') as unknown[]).filter((p) => at(p, 'attributes.name') === name).length;
}

describe('retries', () => {
  let f: ApiFixture;
  let policyId: string;
  let policy: Policy;
  // Back-off waits run on a virtual clock: the retries happen at once, whatever their delays.
  const clock = new VirtualClock({ autoAdvance: true });
  before(async () => {
    f = await startApiFixture(testSeed(), { clock });
    policy = await f.client.createPolicy('acme', policyInput('retry-target'));
    policyId = policy.id;
  });
  afterEach(async () => {
    await f.emulator.clearFaults();
    await f.emulator.clearRequests();
  });
  after(async () => { await f.close(); });

  it('retries a burst of 5xx and dropped connections, then succeeds', async () => {
    await f.emulator.addFaults(
      { kind: 'status', method: 'GET', path: '^/policies/', status: 503, count: 2 },
      { kind: 'drop', method: 'GET', path: '^/policies/', count: 2 },
      { kind: 'status', method: 'GET', path: '^/policies/', status: 500, count: 1 },
    );
    await f.emulator.clearRequests();
    const before = f.client.stats().retries;
    const policy = await f.client.getPolicy(policyId);
    assert.equal(policy.name, 'retry-target');
    const requests = await f.emulator.requests();
    assert.equal(requests.length, 6, JSON.stringify(requests));
    assert.deepEqual([requests[0]?.status, requests[1]?.status, requests[4]?.status, requests[5]?.status], [503, 503, 500, 200]);
    assert.equal(f.client.stats().retries - before, 5);
    assert.ok((f.client.stats().byStatus.error ?? 0) >= 2, 'dropped connections counted as errors');
  });

  it('a request that times out is retried', async () => {
    const { logger } = captureLogs();
    const impatient = new ApiClient({ baseUrl: f.emulator.url, token: f.emulator.token, logger, timeoutMs: 300, clock });
    try {
      await f.emulator.addFaults({ kind: 'latency', method: 'GET', path: '^/policies/', 'latency-ms': 800, count: 1 });
      assert.equal((await impatient.getPolicy(policyId)).id, policyId);
      assert.equal(impatient.stats().retries, 1);
      assert.equal(impatient.stats().byStatus.error, 1);
      // The timed-out request is logged unanswered once the client has let it go: wait for it, so that it lands in no later test's log.
      await waitFor('the timed-out request in the log', async () => ((await f.emulator.requests()).some((r) => r.status === null) ? true : undefined));
    } finally {
      await impatient.close();
    }
  });

  it('gives up after maxRetries: the last 5xx as ApiError, endless drops as NetworkError', async () => {
    const { logger } = captureLogs();
    const brief = new ApiClient({ baseUrl: f.emulator.url, token: f.emulator.token, logger, maxRetries: 2, clock });
    try {
      await f.emulator.addFaults({ kind: 'status', method: 'GET', path: '^/policies/', status: 502, count: 0 });
      await rejectsWithStatus(brief.getPolicy(policyId), 502, 'GET', `/policies/${policyId}`);
      assert.equal((await f.emulator.requests()).length, 3);
      await f.emulator.clearFaults();
      await f.emulator.clearRequests();
      await f.emulator.addFaults({ kind: 'drop', method: 'GET', path: '^/policies/', count: 0 });
      const error = await brief.getPolicy(policyId).then(() => assert.fail('expected a NetworkError'), (e: unknown) => e);
      assert.ok(error instanceof NetworkError, String(error));
      assert.deepEqual(error.request, { method: 'GET', path: `/policies/${policyId}` });
      assert.match(error.message, new RegExp(`^GET /policies/${policyId} failed: `));
      const dropped = await f.emulator.requests();
      assert.equal(dropped.length, 3, JSON.stringify(dropped) + JSON.stringify(brief.stats()));
    } finally {
      await brief.close();
    }
  });

  it('never retries a 422 or a 404: exactly one request each', async () => {
    await rejectsWithStatus(f.client.updatePolicy(policy, { enforcementLevel: 'mandatory' }), 422, 'PATCH', `/policies/${policyId}`);
    await rejectsWithStatus(f.client.getPolicy('pol-absent'), 404, 'GET', '/policies/pol-absent');
    assert.deepEqual((await f.emulator.requests()).map((r) => [r.method, r.status]), [['PATCH', 422], ['GET', 404]]);
  });

  it('a create whose response was lost is found, not repeated', async () => {
    await f.emulator.addFaults({ kind: 'lose-response', method: 'POST', path: '^/organizations/acme/policies$', count: 1 });
    const created = await f.client.createPolicy('acme', policyInput('lost-answer'), (found) => found.description === null);
    assert.equal(created.name, 'lost-answer');
    assert.equal(await policiesNamed(f, 'lost-answer'), 1);
    const requests = await f.emulator.requests();
    assert.deepEqual(requests.filter((r) => r.method === 'POST').length, 1, JSON.stringify(requests));
    assert.ok(requests.some((r) => r.method === 'GET' && r.path.includes('search%5Bname%5D=lost-answer')), 'looked before repeating');
  });

  it('a create whose response was lost does not take a policy its owner check refuses: it is sent again and meets the 422', async () => {
    await f.emulator.addFaults({ kind: 'lose-response', method: 'POST', path: '^/organizations/acme/policies$', count: 1 });
    await f.emulator.clearRequests();
    await rejectsWithStatus(f.client.createPolicy('acme', policyInput('lost-not-mine'), () => false), 422, 'POST', '/organizations/acme/policies');
    const posts = (await f.emulator.requests()).filter((r) => r.method === 'POST').map((r) => r.status);
    assert.deepEqual(posts, [null, 422]);
  });

  it('a create dropped before the write, or answered 503, is sent again once nothing is found', async () => {
    await f.emulator.addFaults(
      { kind: 'drop', method: 'POST', path: '^/organizations/acme/policies$', count: 1 },
      { kind: 'status', method: 'POST', path: '^/organizations/acme/policies$', status: 503, count: 1 },
    );
    const created = await f.client.createPolicy('acme', policyInput('dropped-create'));
    assert.equal(created.name, 'dropped-create');
    assert.equal(await policiesNamed(f, 'dropped-create'), 1);
    const posts = (await f.emulator.requests()).filter((r) => r.method === 'POST' && r.path.endsWith('/policies'));
    assert.equal(posts.length, 3);
    assert.equal(posts[2]?.status, 200);
  });

  it('a pool create whose response was lost is found by q, not repeated, when its owner may take it', async () => {
    await f.emulator.addFaults({ kind: 'lose-response', method: 'POST', path: 'agent-pools$', count: 1 });
    const pool = await f.client.createAgentPool('fresh', { name: 'lost-pool', organizationScoped: true, allowedWorkspaceIds: null }, () => true);
    assert.equal(pool.name, 'lost-pool');
    const requests = await f.emulator.requests();
    assert.equal(requests.filter((r) => r.method === 'POST').length, 1);
    assert.ok(requests.some((r) => r.method === 'GET' && r.path.includes('q=lost-pool')), 'looked before repeating');
    assert.deepEqual((await f.client.listAgentPools('fresh')).pools.map((p) => p.name), ['lost-pool']);
  });

  it('a pool of the name found after a lost answer is not taken when the ownership decision says it is not this create\'s', async () => {
    // Someone else's pool of the name (pools carry no marker): under ownership: marker it is never this source's.
    const theirs = await f.client.createAgentPool('roomy', { name: 'someone-elses', organizationScoped: true, allowedWorkspaceIds: null });
    await f.emulator.clearRequests();
    await f.emulator.addFaults({ kind: 'status', method: 'POST', path: 'agent-pools$', status: 503, count: 1 });
    const asked: string[] = [];
    const create = f.client.createAgentPool('roomy', { name: 'someone-elses', organizationScoped: false, allowedWorkspaceIds: [] }, (found) => {
      asked.push(found.id);
      return false;
    });
    await rejectsWithStatus(create, 422, 'POST', '/organizations/roomy/agent-pools');
    assert.deepEqual(asked, [theirs.id], 'the ownership decision was asked of the pool found');
    const posts = (await f.emulator.requests()).filter((r) => r.method === 'POST');
    assert.equal(posts.length, 2, 'sent again, and refused: the name is taken');
  });

  it('a 429 pauses the queue and retries until the request goes through', async () => {
    // The emulator's one-second window and the client's waits run on one virtual clock: the resets pass at once.
    const time = new VirtualClock({ autoAdvance: true });
    const limited = await startApiFixture(testSeed({ rateLimit: 5 }), { clock: time, rateLimit: 1000 }, () => time.now());
    try {
      // Configured far above the server's limit, so only the 429 handling keeps it working.
      const eager = limited.client;
      const target = await eager.createPolicy('acme', policyInput('limited-target'));
      let refused: Response | undefined;
      for (let i = 0; i < 10 && refused === undefined; i += 1) {
        const response = await fetch(`${limited.emulator.url}/policies/${target.id}`, { headers: { authorization: `Bearer ${limited.emulator.token}` } });
        if (response.status === 429) refused = response;
        else await response.arrayBuffer();
      }
      assert.ok(refused, 'the emulator answers 429 over the limit');
      assert.deepEqual(await refused.json(), { errors: [{ detail: "You have exceeded the API's rate limit.", status: 429, title: 'Too many requests' }] });
      assert.equal(refused.headers.get('x-ratelimit-limit'), '5');
      assert.equal(refused.headers.get('x-ratelimit-remaining'), '0');
      assert.match(String(refused.headers.get('x-ratelimit-reset')), /^\d+(\.\d+)?$/);
      // Slow answers keep eight requests in flight before any rate-limit header comes back.
      await limited.emulator.addFaults({ kind: 'latency', method: 'GET', path: '^/policies/', 'latency-ms': 100, count: 0 });
      const results = await Promise.all(Array.from({ length: 15 }, () => eager.getPolicy(target.id)));
      assert.equal(results.length, 15);
      const stats = eager.stats();
      assert.ok(stats.rateLimited > 0 && stats.byStatus['429'] === stats.rateLimited, JSON.stringify(stats));
      assert.equal(stats.byStatus['200'], 15 + 1, 'the create and the 15 reads');
      assert.ok(stats.rateLimitWaitSeconds > 0);
      const records = limited.logLines.map((l) => JSON.parse(l) as { msg: string; level: number });
      assert.ok(records.some((r) => r.msg === 'api rate limited, waiting' && r.level === 40));
    } finally {
      await limited.close();
    }
  });

});
