import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertAgentResource, assertErrorDocument, assertListEnvelope, assertPoolResource, at } from './helpers/api-documents.js';
import { rejectsWithStatus } from './helpers/api-assert.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';


const PAGE_QUERY = '?page%5Bnumber%5D=1&page%5Bsize%5D=100';
/** The same query as errors and logs show it. */
const READABLE_PAGE_QUERY = '?page[number]=1&page[size]=100';

describe('agent pool and agent endpoints against the emulator', () => {
  let f: ApiFixture;
  before(async () => { f = await startApiFixture(); });
  after(async () => { await f.close(); });

  it('lists pools with status counts and every documented field', async () => {
    const list = await f.client.listAgentPools('acme', { includeWorkspaces: true, sort: 'name' });
    assert.equal(list.pools.length, 1);
    const [pool] = list.pools;
    assert.ok(pool);
    assert.match(pool.id, /^apool-/);
    assert.match(pool.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.deepEqual({ ...pool, id: '', createdAt: '' }, {
      id: '', createdAt: '', name: 'pool-a', organizationScoped: false, agentCount: 2, workspaceIds: [], allowedWorkspaceIds: ['ws-web'], allowedProjectIds: [], excludedWorkspaceIds: [],
    });
    assert.deepEqual(list.statusCounts, { total: 1, matching: 1 });
    const raw = await f.emulator.call('GET', `/organizations/acme/agent-pools${PAGE_QUERY}`);
    assert.equal(raw.status, 200);
    assertListEnvelope(raw.json, { current: 1, total: 1, count: 1 });
    assert.deepEqual(at(raw.json, 'meta.status-counts'), { total: 1, matching: 1 });
    assertPoolResource(at(raw.json, 'data.0'), { name: 'pool-a', organizationScoped: false, allowedWorkspaceIds: ['ws-web'], agentCount: 2 });
    assert.deepEqual((await f.client.listAgentPools('acme', { q: 'nothing-like-it' })).pools, []);
    const byWorkspace = await f.client.listAgentPools('acme', { allowedWorkspaceName: 'web' });
    assert.deepEqual(byWorkspace.pools.map((p) => p.name), ['pool-a']);
  });

  it('creates a pool (201), shows, renames in place, replaces allowed workspaces, deletes (204)', async () => {
    await f.emulator.clearRequests();
    const created = await f.client.createAgentPool('fresh', { name: 'builders', organizationScoped: false, allowedWorkspaceIds: ['ws-one'] });
    assert.deepEqual([created.name, created.organizationScoped, created.allowedWorkspaceIds], ['builders', false, ['ws-one']]);
    const [logged] = await f.emulator.requests();
    assert.deepEqual([logged?.method, logged?.path, logged?.status, logged?.['content-type']],
      ['POST', '/organizations/fresh/agent-pools', 201, 'application/vnd.api+json']);
    const shown = await f.client.getAgentPool(created.id, { includeWorkspaces: true });
    assert.deepEqual({ ...shown, agentCount: 0 }, { ...created, agentCount: 0 });
    assertPoolResource(at((await f.emulator.call('GET', `/agent-pools/${created.id}`)).json, 'data'),
      { name: 'builders', organizationScoped: false, allowedWorkspaceIds: ['ws-one'] });

    const renamed = await f.client.updateAgentPool(created.id, { name: 'builders-2', organizationScoped: true, allowedWorkspaceIds: [] });
    assert.deepEqual([renamed.id, renamed.name, renamed.organizationScoped, renamed.allowedWorkspaceIds], [created.id, 'builders-2', true, []]);
    assertPoolResource(at((await f.emulator.call('GET', `/agent-pools/${created.id}`)).json, 'data'),
      { name: 'builders-2', organizationScoped: true, allowedWorkspaceIds: [] });

    await f.emulator.clearRequests();
    await f.client.deleteAgentPool(created.id);
    assert.deepEqual((await f.emulator.requests()).map((r) => [r.method, r.status]), [['DELETE', 204]]);
    await rejectsWithStatus(f.client.getAgentPool(created.id), 404, 'GET', `/agent-pools/${created.id}`);
  });

  it('422 for a second pool, a taken name and a malformed name; never retried', async () => {
    await f.emulator.clearRequests();
    await rejectsWithStatus(f.client.createAgentPool('acme', { name: 'second', organizationScoped: true, allowedWorkspaceIds: null }), 422, 'POST', '/organizations/acme/agent-pools');
    const one = await f.client.createAgentPool('roomy', { name: 'r-one', organizationScoped: true, allowedWorkspaceIds: null });
    await rejectsWithStatus(f.client.createAgentPool('roomy', { name: 'r-one', organizationScoped: true, allowedWorkspaceIds: null }), 422, 'POST', '/organizations/roomy/agent-pools');
    await rejectsWithStatus(f.client.updateAgentPool(one.id, { name: 'not a name!', organizationScoped: true }), 422, 'PATCH', `/agent-pools/${one.id}`);
    assert.deepEqual((await f.emulator.requests()).map((r) => r.status), [422, 201, 422, 422]);
    const raw = await f.emulator.call('PATCH', `/agent-pools/${one.id}`, { body: { data: { type: 'agent-pools', attributes: { name: 'not a name!' } } } });
    assert.equal(raw.status, 422);
    assertErrorDocument(raw.json);
  });

  it('lists, filters and shows agents with every documented field', async () => {
    const [pool] = (await f.client.listAgentPools('acme')).pools;
    assert.ok(pool);
    const agents = await f.client.listAgents(pool.id);
    assert.deepEqual(agents.map((a) => ({ ...a, id: '' })), [
      { id: '', name: 'agent-idle', status: 'idle', ipAddress: '10.0.0.1', lastPingAt: '2026-01-01T10:00:00.000Z', createdAt: '2026-01-01T10:00:00.000Z' },
      { id: '', name: 'agent-busy', status: 'busy', ipAddress: '10.0.0.2', lastPingAt: '2026-01-02T10:00:00.000Z', createdAt: '2026-01-02T10:00:00.000Z' },
      { id: '', name: 'agent-gone', status: 'exited', ipAddress: '10.0.0.3', lastPingAt: '2026-01-03T10:00:00.000Z', createdAt: '2026-01-03T10:00:00.000Z' },
    ]);
    const recent = await f.client.listAgents(pool.id, { lastPingSince: '2026-01-02T00:00:00.000Z' });
    assert.deepEqual(recent.map((a) => a.name), ['agent-busy', 'agent-gone']);
    const first = agents[0];
    assert.ok(first);
    assert.deepEqual(await f.client.getAgent(first.id), first);
    const raw = await f.emulator.call('GET', `/agent-pools/${pool.id}/agents${PAGE_QUERY}`);
    assertListEnvelope(raw.json, { current: 1, total: 1, count: 3 });
    assertAgentResource(at(raw.json, 'data.0'), { name: 'agent-idle', status: 'idle', ipAddress: '10.0.0.1', lastPingAt: '2026-01-01T10:00:00.000Z' });
    assertAgentResource(at((await f.emulator.call('GET', `/agents/${first.id}`)).json, 'data'),
      { name: 'agent-idle', status: 'idle', ipAddress: '10.0.0.1', lastPingAt: '2026-01-01T10:00:00.000Z' });
  });

  it('deletes an exited agent (204), again (404, done), and refuses an idle or busy one (412)', async () => {
    const [pool] = (await f.client.listAgentPools('acme')).pools;
    assert.ok(pool);
    const agents = await f.client.listAgents(pool.id);
    const byName = new Map(agents.map((a) => [a.name, a]));
    const idle = byName.get('agent-idle');
    const busy = byName.get('agent-busy');
    const gone = byName.get('agent-gone');
    assert.ok(idle && busy && gone);
    await f.emulator.clearRequests();
    await rejectsWithStatus(f.client.deleteAgent(idle.id), 412, 'DELETE', `/agents/${idle.id}`);
    await rejectsWithStatus(f.client.deleteAgent(busy.id), 412, 'DELETE', `/agents/${busy.id}`);
    await f.client.deleteAgent(gone.id);
    assert.deepEqual((await f.emulator.requests()).map((r) => r.status), [412, 412, 204]);
    await rejectsWithStatus(f.client.getAgent(gone.id), 404, 'GET', `/agents/${gone.id}`);
    await f.emulator.clearRequests();
    await f.client.deleteAgent(gone.id);
    assert.deepEqual((await f.emulator.requests()).map((r) => r.status), [404], 'deleting it again is a 404, and done');
    assert.deepEqual((await f.client.listAgents(pool.id)).map((a) => a.name), ['agent-idle', 'agent-busy']);
  });

  it('an agent that never pinged is served and read with null last-ping-at and ip-address, and its created-at', async () => {
    const [pool] = (await f.client.listAgentPools('acme')).pools;
    assert.ok(pool);
    const registered = '2026-01-01T08:00:00.000Z';
    const [id] = await f.emulator.addAgents(pool.id, [{ name: 'never', status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': registered }]);
    assert.ok(id);
    const raw = await f.emulator.call('GET', `/agents/${id}`);
    assert.deepEqual(at(raw.json, 'data.attributes'), { name: 'never', status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': registered });
    assert.deepEqual(await f.client.getAgent(id), { id, name: 'never', status: 'exited', ipAddress: null, lastPingAt: null, createdAt: registered });
    assert.ok((await f.client.listAgents(pool.id)).some((a) => a.id === id && a.lastPingAt === null));
    const recent = await f.client.listAgents(pool.id, { lastPingSince: '2026-01-01T00:00:00.000Z' });
    assert.ok(!recent.some((a) => a.id === id), 'an agent that never pinged has not pinged since any time');
    await f.client.deleteAgent(id);
  });

  it('404 for a missing organization, pool or agent; deleting a missing pool is done', async () => {
    await rejectsWithStatus(f.client.listAgentPools('no-such-org'), 404, 'GET', `/organizations/no-such-org/agent-pools${READABLE_PAGE_QUERY}`);
    await rejectsWithStatus(f.client.createAgentPool('no-such-org', { name: 'p', organizationScoped: true, allowedWorkspaceIds: null }), 404, 'POST', '/organizations/no-such-org/agent-pools');
    await rejectsWithStatus(f.client.getAgentPool('apool-missing'), 404, 'GET', '/agent-pools/apool-missing');
    await rejectsWithStatus(f.client.updateAgentPool('apool-missing', { name: 'x', organizationScoped: true }), 404, 'PATCH', '/agent-pools/apool-missing');
    await f.client.deleteAgentPool('apool-missing');
    await rejectsWithStatus(f.client.listAgents('apool-missing'), 404, 'GET', `/agent-pools/apool-missing/agents${READABLE_PAGE_QUERY}`);
    await rejectsWithStatus(f.client.getAgent('agent-missing'), 404, 'GET', '/agents/agent-missing');
    assertErrorDocument((await f.emulator.call('GET', '/agents/agent-missing')).json);
  });
});
