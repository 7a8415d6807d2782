import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertListEnvelope, assertPolicyResource, at } from './helpers/api-documents.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';

describe('pagination', () => {
  let f: ApiFixture;
  before(async () => { f = await startApiFixture(); });
  after(async () => { await f.close(); });

  it('lists 250 policies in exactly 3 requests of page[size]=100, following next to the end', async () => {
    const names = Array.from({ length: 250 }, (_, i) => `paged-${String(i).padStart(3, '0')}`);
    await Promise.all(names.map((name) => f.client.createPolicy('acme', {
      name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    })));
    await f.emulator.clearRequests();
    const listed = await f.client.listPolicies('acme');
    assert.deepEqual(listed.map((p) => p.name).sort(), names);
    assert.equal(new Set(listed.map((p) => p.id)).size, 250);
    const requests = await f.emulator.requests();
    assert.equal(requests.length, 3, requests.map((r) => r.path).join('\n'));
    for (const [index, request] of requests.entries()) {
      assert.equal(request.method, 'GET');
      assert.equal(request.status, 200);
      assert.match(request.path, /^\/organizations\/acme\/policies\?/);
      assert.match(request.path, /page%5Bsize%5D=100(&|$)/);
      assert.match(request.path, new RegExp(`page%5Bnumber%5D=${index + 1}(&|$)`));
      assert.doesNotMatch(request.path, /[[\]]/);
    }

    const middle = await f.emulator.call('GET', '/organizations/acme/policies?page%5Bnumber%5D=2&page%5Bsize%5D=100');
    assertListEnvelope(middle.json, { current: 2, total: 3, count: 250 });
    assert.equal((at(middle.json, 'data') as unknown[]).length, 100);
    assertPolicyResource(at(middle.json, 'data.0'), {
      name: String(at(middle.json, 'data.0.attributes.name')), description: null, kind: 'native', query: null, level: 'advisory',
      policySetIds: [], organization: 'acme', uploaded: false, hasDownload: true,
    });
    const last = await f.emulator.call('GET', '/organizations/acme/policies?page%5Bnumber%5D=3&page%5Bsize%5D=100');
    assertListEnvelope(last.json, { current: 3, total: 3, count: 250 });
    assert.equal((at(last.json, 'data') as unknown[]).length, 50);
  });

  it('a page size above 100 is refused (422), 100 is answered whole, the default is 20', async () => {
    assert.equal((await f.emulator.call('GET', '/organizations/acme/policies?page%5Bsize%5D=500')).status, 422);
    const big = await f.emulator.call('GET', '/organizations/acme/policies?page%5Bsize%5D=100');
    assert.equal((at(big.json, 'data') as unknown[]).length, 100);
    const plain = await f.emulator.call('GET', '/organizations/acme/policies');
    assert.equal((at(plain.json, 'data') as unknown[]).length, 20);
  });

  it('lists 130 agents of a pool in 2 pages', async () => {
    const [pool] = (await f.client.listAgentPools('acme')).pools;
    assert.ok(pool);
    const agents = Array.from({ length: 127 }, (_, i) => ({
      name: `bulk-${i}`, status: 'idle', 'ip-address': `10.1.0.${i}`, 'last-ping-at': '2026-02-01T00:00:00.000Z',
    }));
    const ids = await f.emulator.addAgents(pool.id, agents);
    assert.equal(ids.length, 127);
    await f.emulator.clearRequests();
    const listed = await f.client.listAgents(pool.id);
    assert.equal(listed.length, 130);
    assert.deepEqual((await f.emulator.requests()).map((r) => r.path), [
      `/agent-pools/${pool.id}/agents?page%5Bnumber%5D=1&page%5Bsize%5D=100`,
      `/agent-pools/${pool.id}/agents?page%5Bnumber%5D=2&page%5Bsize%5D=100`,
    ]);
  });
});
