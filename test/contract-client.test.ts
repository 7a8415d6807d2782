/**
 * The sequences of the vendor's own client integration tests (see test/contract-emulator.test.ts),
 * replayed through the client against the emulator as it starts, at its strictest.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { AgentPool, CreatePolicyInput } from '../src/api/types.js';
import { silentLogger } from '../src/logger.js';
import { rejectsWithStatus } from './helpers/api-assert.js';
import { at } from './helpers/api-documents.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';
import { contractSeed, NATIVE_CODE, WS_APP, WS_OPS } from './helpers/contract-seed.js';

function native(name: string): CreatePolicyInput {
  return { name, kind: 'native', description: null, enforcementLevel: 'soft-mandatory', query: null, policySetIds: [] };
}

describe('the vendor client test sequences, through the client', () => {
  let f: ApiFixture;
  before(async () => {
    f = await startApiFixture(contractSeed());
  });
  after(async () => {
    await f.close();
  });

  async function pool(name: string): Promise<AgentPool> {
    const found = (await f.client.listAgentPools('org')).pools.find((p) => p.name === name);
    assert.ok(found, `pool ${name}`);
    return found;
  }

  it('policy lifecycle: create with enforce only (legacy-enforce), show, no code, upload, exact download, empty upload', async () => {
    const legacy = new ApiClient({ baseUrl: f.emulator.url, token: f.emulator.token, logger: silentLogger(), legacyEnforce: true });
    try {
      const created = await legacy.createPolicy('org', native('lifecycle'));
      assert.deepEqual([created.links.download, created.updatedAt, created.enforcementLevel], [null, null, 'soft-mandatory']);
      assert.equal(created.links.upload, `/api/v2/policies/${created.id}/upload`);
      const shown = await legacy.getPolicy(created.id);
      assert.equal(shown.enforcementLevel, 'soft-mandatory');
      assert.equal(shown.links.download, `/api/v2/policies/${created.id}/download`);
      assert.equal(await legacy.downloadPolicy(shown), null, 'a 404 before any upload: no code');

      await legacy.uploadPolicy(created.id, Buffer.from(NATIVE_CODE));
      const uploaded = await legacy.getPolicy(created.id);
      assert.equal(await legacy.downloadPolicy(uploaded), NATIVE_CODE);
      assert.match(uploaded.updatedAt ?? '', /^\d{4}-\d{2}-\d{2}T/);
      assert.equal(uploaded.enforcementLevel, 'soft-mandatory', 'read from the enforce array the upload filled');

      await legacy.uploadPolicy(created.id, Buffer.alloc(0));
      assert.equal(await legacy.downloadPolicy(uploaded), '');
    } finally {
      await legacy.close();
    }
    const modern = await f.client.createPolicy('org', native('lifecycle-modern'));
    assert.equal(modern.enforcementLevel, 'soft-mandatory', 'enforcement-level alone is understood');
  });

  it('listing three policies: everything in one page, search and kind select as expected', async () => {
    await f.client.createPolicy('listing', native('list-native-one'));
    await f.client.createPolicy('listing', { ...native('list-native-two'), enforcementLevel: 'hard-mandatory' });
    await f.client.createPolicy('listing', { ...native('list-opa'), kind: 'opa', query: 'data.terraform.deny', enforcementLevel: 'mandatory' });
    await f.emulator.clearRequests();
    const all = await f.client.listPolicies('listing');
    assert.deepEqual(all.map((p) => p.name).sort(), ['list-native-one', 'list-native-two', 'list-opa']);
    assert.equal((await f.emulator.requests()).length, 1, 'next-page null ends the listing');
    assert.deepEqual((await f.client.listPolicies('listing', { search: 'list-native-one' })).map((p) => p.name), ['list-native-one']);
    assert.deepEqual((await f.client.listPolicies('listing', { kind: 'opa' })).map((p) => [p.name, p.query]), [['list-opa', 'data.terraform.deny']]);
    assert.deepEqual((await f.client.listPolicies('listing', { kind: 'native' })).map((p) => p.name).sort(), ['list-native-one', 'list-native-two']);
  });

  it('a level-only update of an opa policy changes the level and keeps the name and description', async () => {
    const created = await f.client.createPolicy('org', {
      name: 'level-only', kind: 'opa', description: 'kept as it is', enforcementLevel: 'mandatory', query: 'data.x.deny', policySetIds: [],
    });
    const updated = await f.client.updatePolicy(created, { enforcementLevel: 'advisory' });
    assert.deepEqual([updated.enforcementLevel, updated.name, updated.description], ['advisory', 'level-only', 'kept as it is']);
    const raw = await f.emulator.call('GET', `/policies/${created.id}`);
    assert.deepEqual([at(raw.json, 'data.attributes.enforcement-level'), at(raw.json, 'data.attributes.description')], ['advisory', 'kept as it is']);
  });

  it('pool relationships: a rename keeps allowed-workspaces and the scope, [] empties them, the workspace filter', async () => {
    const build = await pool('build');
    const renamed = await f.client.updateAgentPool(build.id, { name: 'builders', organizationScoped: false });
    assert.deepEqual([renamed.name, renamed.organizationScoped, renamed.allowedWorkspaceIds], ['builders', false, [WS_APP]]);
    const emptied = await f.client.updateAgentPool(build.id, { name: 'builders', organizationScoped: false, allowedWorkspaceIds: [] });
    assert.deepEqual([emptied.name, emptied.organizationScoped, emptied.allowedWorkspaceIds], ['builders', false, []]);

    await f.client.updateAgentPool(build.id, { name: 'builders', organizationScoped: false, allowedWorkspaceIds: [WS_APP] });
    await f.client.createAgentPool('org', { name: 'everyone', organizationScoped: true, allowedWorkspaceIds: null });
    await f.client.createAgentPool('org', { name: 'ops-only', organizationScoped: false, allowedWorkspaceIds: [WS_OPS] });
    const names = async (workspace: string): Promise<string[]> =>
      (await f.client.listAgentPools('org', { allowedWorkspaceName: workspace })).pools.map((p) => p.name).sort();
    assert.deepEqual(await names('app'), ['builders', 'everyone']);
    assert.deepEqual(await names('ops'), ['everyone', 'ops-only']);
  });

  it('deletes: done on 204 and on the 404 of a second delete; an idle agent is refused with 412', async () => {
    const policy = await f.client.createPolicy('org', native('doomed'));
    await f.emulator.clearRequests();
    await f.client.deletePolicy(policy.id);
    await f.client.deletePolicy(policy.id);
    const everyone = await pool('everyone');
    await f.client.deleteAgentPool(everyone.id);
    await f.client.deleteAgentPool(everyone.id);
    const agents = await f.client.listAgents((await pool('builders')).id);
    const idOf = (status: string): string => agents.find((a) => a.status === status)!.id;
    await rejectsWithStatus(f.client.deleteAgent(idOf('idle')), 412, 'DELETE', `/agents/${idOf('idle')}`);
    await f.client.deleteAgent(idOf('exited'));
    await f.client.deleteAgent(idOf('exited'));
    const deletes = (await f.emulator.requests()).filter((r) => r.method === 'DELETE').map((r) => r.status);
    assert.deepEqual(deletes, [204, 404, 204, 404, 412, 204, 404]);
  });

  it('a delete whose first answer is lost ends as deleted, for a policy, a pool and an agent', async () => {
    const policy = await f.client.createPolicy('org', native('answer-lost'));
    const opsOnly = await pool('ops-only');
    const [stale] = await f.emulator.addAgents(opsOnly.id, [{ name: 'stale', status: 'errored' }]);
    assert.ok(stale);
    await f.emulator.addFaults(
      { kind: 'lose-response', method: 'DELETE', path: '^/policies/', count: 1 },
      { kind: 'lose-response', method: 'DELETE', path: '^/agents/', count: 1 },
      { kind: 'lose-response', method: 'DELETE', path: '^/agent-pools/', count: 1 },
    );
    await f.emulator.clearRequests();
    await f.client.deletePolicy(policy.id);
    await f.client.deleteAgent(stale);
    await f.client.deleteAgentPool(opsOnly.id);
    const deletes = (await f.emulator.requests()).filter((r) => r.method === 'DELETE').map((r) => [r.path, r.status]);
    assert.deepEqual(deletes, [
      [`/policies/${policy.id}`, null], [`/policies/${policy.id}`, 404],
      [`/agents/${stale}`, null], [`/agents/${stale}`, 404],
      [`/agent-pools/${opsOnly.id}`, null], [`/agent-pools/${opsOnly.id}`, 404],
    ]);
    await rejectsWithStatus(f.client.getPolicy(policy.id), 404, 'GET', `/policies/${policy.id}`);
    assert.deepEqual((await f.client.listAgentPools('org')).pools.map((p) => p.name), ['builders']);
  });
});
