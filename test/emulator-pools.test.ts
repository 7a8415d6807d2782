import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ISO_MS, poolBody, TestEmulator, orgSeed } from './helpers/emulator.js';

const WS_APP = 'ws-aaaaaaaaaaaaaaaa';
const WS_OPS = 'ws-bbbbbbbbbbbbbbbb';
const names = (res: { json: { data: { attributes: { name: string } }[] } }): string[] => res.json.data.map((p) => p.attributes.name);

describe('emulator agent pools and agents', () => {
  let t: TestEmulator;
  let buildId: string;
  before(async () => {
    const org = orgSeed().organizations[0]!;
    t = await TestEmulator.start(
      orgSeed({
        organizations: [
          {
            ...org,
            maxAgentPools: 5,
            agentPools: [
              {
                name: 'build',
                organizationScoped: false,
                allowedWorkspaces: [WS_APP],
                agents: [
                  { name: 'idle-1', status: 'idle', ipAddress: '10.0.0.1', lastPingAt: '2026-01-02T00:00:00.000Z' },
                  { name: 'busy-1', status: 'busy', lastPingAt: '2026-01-01T00:00:00.000Z' },
                  { name: 'gone-1', status: 'exited', lastPingAt: '2025-06-01T00:00:00.000Z' },
                  { status: 'unknown', lastPingAt: '2025-01-01T00:00:00.000Z' },
                ],
              },
            ],
          },
        ],
      }),
    );
    const list = await t.call('GET', '/organizations/org/agent-pools');
    buildId = list.json.data[0].id;
  });
  after(() => t.close());

  it('serialises a seeded pool with every documented field', async () => {
    const res = await t.call('GET', `/agent-pools/${buildId}`);
    assert.equal(res.status, 200);
    const { data } = res.json;
    assert.match(data.id, /^apool-[A-Za-z0-9]{16}$/);
    assert.equal(data.type, 'agent-pools');
    assert.equal(data.attributes.name, 'build');
    assert.match(data.attributes['created-at'], ISO_MS);
    assert.equal(data.attributes['organization-scoped'], false);
    assert.equal(data.attributes['agent-count'], 3, 'idle, busy and unknown count; exited does not');
    assert.deepEqual(data.relationships, {
      organization: { data: { id: 'org', type: 'organizations' } },
      agents: { links: { related: `/api/v2/agent-pools/${data.id}/agents` } },
      'authentication-tokens': { links: { related: `/api/v2/agent-pools/${data.id}/authentication-tokens` } },
      workspaces: { data: [] },
      'allowed-workspaces': { data: [{ id: WS_APP, type: 'workspaces' }] },
      'allowed-projects': { data: [] },
      'excluded-workspaces': { data: [] },
    });
    assert.deepEqual(data.links, { self: `/api/v2/agent-pools/${data.id}` });
    const included = await t.call('GET', `/agent-pools/${buildId}?include=workspaces`);
    assert.deepEqual(included.json.included.map((w: { id: string; type: string }) => [w.id, w.type]), [[WS_APP, 'workspaces']]);
  });

  it('creates with 201, lists with q, sort, the workspace filter, include and status counts', async () => {
    const created = await t.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'alpha', 'organization-scoped': true }) });
    assert.equal(created.status, 201);
    assert.equal(created.json.data.attributes['organization-scoped'], true);
    assert.equal(created.json.data.attributes['agent-count'], 0);
    const opsOnly = await t.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'deploy', 'organization-scoped': false }, [WS_OPS]) });
    assert.equal(opsOnly.status, 201);

    const all = await t.call('GET', '/organizations/org/agent-pools');
    assert.deepEqual(names(all), ['build', 'alpha', 'deploy']);
    assert.deepEqual(all.json.meta['status-counts'], { total: 3, matching: 3 });
    assert.equal(all.json.meta.pagination['total-count'], 3);
    assert.deepEqual(names(await t.call('GET', '/organizations/org/agent-pools?sort=name')), ['alpha', 'build', 'deploy']);
    assert.deepEqual(names(await t.call('GET', '/organizations/org/agent-pools?sort=-name')), ['deploy', 'build', 'alpha']);
    assert.deepEqual(names(await t.call('GET', '/organizations/org/agent-pools?sort=-created-at')).at(-1), 'build');
    const q = await t.call('GET', '/organizations/org/agent-pools?q=LPH');
    assert.deepEqual(names(q), ['alpha']);
    assert.deepEqual(q.json.meta['status-counts'], { total: 3, matching: 1 });
    const app = await t.call('GET', '/organizations/org/agent-pools?filter%5Ballowed_workspaces%5D%5Bname%5D=app');
    assert.deepEqual(names(app), ['build', 'alpha'], 'allowed explicitly, or organization-scoped');
    const ops = await t.call('GET', '/organizations/org/agent-pools?filter[allowed_workspaces][name]=ops&include=workspaces');
    assert.deepEqual(names(ops), ['alpha', 'deploy']);
    assert.deepEqual(ops.json.included.map((w: { id: string; attributes: { name: string } }) => [w.id, w.attributes.name]), [[WS_OPS, 'ops']]);
  });

  it('renames in place with PATCH and replaces allowed-workspaces as a whole list', async () => {
    const agentsBefore = await t.call('GET', `/agent-pools/${buildId}/agents`);
    const renamed = await t.call('PATCH', `/agent-pools/${buildId}`, { body: poolBody({ name: 'builders', 'organization-scoped': false }, [WS_OPS]) });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.json.data.id, buildId);
    assert.equal(renamed.json.data.attributes.name, 'builders');
    assert.equal(renamed.json.data.attributes['organization-scoped'], false);
    assert.deepEqual(renamed.json.data.relationships['allowed-workspaces'].data, [{ id: WS_OPS, type: 'workspaces' }]);
    const cleared = await t.call('PATCH', `/agent-pools/${buildId}`, { body: poolBody({ 'organization-scoped': false }, []) });
    assert.deepEqual(cleared.json.data.relationships['allowed-workspaces'].data, []);
    assert.equal(cleared.json.data.attributes.name, 'builders');
    const agentsAfter = await t.call('GET', `/agent-pools/${buildId}/agents`);
    assert.deepEqual(agentsAfter.json.data, agentsBefore.json.data, 'agents stay with the renamed pool');
  });

  it('a PATCH without organization-scoped sets it to true, its documented default; switched off, leaves it', async () => {
    const pool = await t.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'scoped-check', 'organization-scoped': false }, [WS_APP]) });
    const id = pool.json.data.id;
    const renamed = await t.call('PATCH', `/agent-pools/${id}`, { body: poolBody({ name: 'scoped-check-2' }) });
    assert.equal(renamed.json.data.attributes['organization-scoped'], true, 'a rename alone opened the pool to the organization');
    assert.deepEqual(renamed.json.data.relationships['allowed-workspaces'].data, [{ id: WS_APP, type: 'workspaces' }]);
    assert.deepEqual((await t.control('PUT', '/behaviour', { 'pool-patch-resets-scope': false })).json,
      { 'pool-patch-resets-scope': false, 'reject-enforce-with-level': true, 'legacy-enforce': false, 'native-kind': 'native', 'list-omits-policy-sets': false, 'show-omits-policy-sets': false, 'ingestion-ms': 500, 'run-lists-ignore-include': false });
    try {
      await t.call('PATCH', `/agent-pools/${id}`, { body: poolBody({ 'organization-scoped': false }) });
      const kept = await t.call('PATCH', `/agent-pools/${id}`, { body: poolBody({ name: 'scoped-check-3' }) });
      assert.equal(kept.json.data.attributes['organization-scoped'], false, 'switched off: unchanged when not sent');
    } finally {
      await t.control('PUT', '/behaviour', { 'pool-patch-resets-scope': true });
    }
    assert.equal((await t.control('PUT', '/behaviour', { 'pool-patch-resets-scope': 'yes' })).status, 400);
    assert.equal((await t.control('PUT', '/behaviour', { 'no-such-switch': true })).status, 400);
    assert.equal((await t.call('DELETE', `/agent-pools/${id}`)).status, 204);
  });

  it('lists agents with filter[last-ping-since] and shows one', async () => {
    const all = await t.call('GET', `/agent-pools/${buildId}/agents`);
    assert.equal(all.status, 200);
    assert.equal(all.json.data.length, 4);
    assert.equal(all.json.meta.pagination['total-count'], 4);
    const [first] = all.json.data;
    assert.match(first.id, /^agent-[A-Za-z0-9]{16}$/);
    assert.deepEqual(first, {
      id: first.id,
      type: 'agents',
      attributes: {
        name: 'idle-1', status: 'idle', 'ip-address': '10.0.0.1', 'last-ping-at': '2026-01-02T00:00:00.000Z', 'created-at': first.attributes['created-at'],
      },
      links: { self: `/api/v2/agents/${first.id}` },
    });
    const recent = await t.call('GET', `/agent-pools/${buildId}/agents?filter%5Blast-ping-since%5D=2025-12-31T00:00:00Z`);
    assert.deepEqual(recent.json.data.map((a: { attributes: { name: string } }) => a.attributes.name), ['idle-1', 'busy-1']);
    const shown = await t.call('GET', `/agents/${first.id}`);
    assert.deepEqual(shown.json.data, first);
  });

  it('deletes unknown, errored or exited agents with 204 and answers 412 for idle or busy ones', async () => {
    const agents = (await t.call('GET', `/agent-pools/${buildId}/agents`)).json.data as { id: string; attributes: { status: string } }[];
    const byStatus = (status: string): string => agents.find((a) => a.attributes.status === status)!.id;
    const busy = await t.call('DELETE', `/agents/${byStatus('busy')}`);
    assert.equal(busy.status, 412);
    assert.equal(busy.json.errors[0].status, '412');
    assert.equal((await t.call('DELETE', `/agents/${byStatus('idle')}`)).status, 412);
    assert.equal((await t.call('DELETE', `/agents/${byStatus('exited')}`)).status, 204);
    assert.equal((await t.call('DELETE', `/agents/${byStatus('unknown')}`)).status, 204);
    assert.equal((await t.call('GET', `/agents/${byStatus('unknown')}`)).status, 404);
    assert.equal((await t.call('GET', `/agents/${byStatus('busy')}`)).json.data.attributes.status, 'busy');
    const pool = await t.call('GET', `/agent-pools/${buildId}`);
    assert.equal(pool.json.data.attributes['agent-count'], 2);
  });

  it('adds and changes agents through the control endpoints', async () => {
    const added = await t.control('POST', '/agents', { pool: buildId, agents: [{ name: 'new-1', status: 'errored', 'ip-address': '10.1.1.1', 'last-ping-at': '2026-02-01T00:00:00Z' }] });
    assert.equal(added.status, 200);
    const [id] = added.json.ids;
    const shown = await t.call('GET', `/agents/${id}`);
    const { 'created-at': createdAt, ...attributes } = shown.json.data.attributes;
    assert.deepEqual(attributes, { name: 'new-1', status: 'errored', 'ip-address': '10.1.1.1', 'last-ping-at': '2026-02-01T00:00:00.000Z' });
    assert.match(createdAt, ISO_MS);
    assert.equal((await t.control('PATCH', `/agents/${id}`, { status: 'busy' })).status, 200);
    assert.equal((await t.call('DELETE', `/agents/${id}`)).status, 412, 'busy now');
    assert.equal((await t.control('POST', '/agents', { pool: 'apool-missing', agents: [] })).status, 404);
  });

  it('the control endpoints add and set agents that never pinged, with null last-ping-at and ip-address, and their created-at', async () => {
    const registered = '2026-01-05T00:00:00.000Z';
    const added = await t.control('POST', '/agents', { pool: buildId, agents: [{ name: 'never', status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': '2026-01-05T00:00:00Z' }] });
    assert.equal(added.status, 200);
    const [id] = added.json.ids;
    assert.deepEqual((await t.call('GET', `/agents/${id}`)).json.data.attributes,
      { name: 'never', status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': registered });
    assert.equal((await t.control('PATCH', `/agents/${id}`, { 'last-ping-at': '2026-01-06T00:00:00Z', 'ip-address': '10.2.2.2' })).status, 200);
    const patched = await t.control('PATCH', `/agents/${id}`, { 'last-ping-at': null, 'ip-address': null, 'created-at': '2026-01-04T00:00:00Z' });
    assert.deepEqual(patched.json.attributes,
      { name: 'never', status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': '2026-01-04T00:00:00.000Z' });
    const state = (await t.control('GET', '/state')).json as { organizations: { 'agent-pools': { agents: { id: string }[] }[] }[] };
    const dumped = state.organizations.flatMap((o) => o['agent-pools'].flatMap((p) => p.agents)).find((a) => a.id === id);
    assert.deepEqual(dumped, { id, name: 'never', status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': '2026-01-04T00:00:00.000Z' });
    assert.equal((await t.control('PATCH', `/agents/${id}`, { 'created-at': null })).status, 400);
    assert.equal((await t.control('PATCH', `/agents/${id}`, { 'last-ping-at': 'soon' })).status, 400);
    assert.equal((await t.control('PATCH', `/agents/${id}`, { 'ip-address': 5 })).status, 400);
    assert.equal((await t.call('DELETE', `/agents/${id}`)).status, 204);
  });

  it('deletes a pool with 204 and its agents with it', async () => {
    const agents = (await t.call('GET', `/agent-pools/${buildId}/agents`)).json.data as { id: string }[];
    assert.ok(agents.length > 0);
    assert.equal((await t.call('DELETE', `/agent-pools/${buildId}`)).status, 204);
    assert.equal((await t.call('GET', `/agent-pools/${buildId}`)).status, 404);
    assert.equal((await t.call('GET', `/agent-pools/${buildId}/agents`)).status, 404);
    for (const agent of agents) assert.equal((await t.call('GET', `/agents/${agent.id}`)).status, 404);
  });
});

for (const nativeKind of ['native', 'sentinel'] as const) {
  describe(`emulator pool lists as the vendor's client asks for them (${nativeKind} dialect)`, () => {
    let t: TestEmulator;
    const PRJ_WEB = 'prj-webwebwebwebweb01';
    const PRJ_OPS = 'prj-opsopsopsopsops02';
    before(async () => {
      const org = orgSeed().organizations[0]!;
      t = await TestEmulator.start(orgSeed({
        nativeKind,
        organizations: [{
          ...org, maxAgentPools: 5, projects: [{ id: PRJ_WEB, name: 'web' }, { id: PRJ_OPS, name: 'ops-project' }],
          agentPools: [{ name: 'everywhere' }, { name: 'app-only', organizationScoped: false, allowedWorkspaces: [WS_APP] }, { name: 'nowhere', organizationScoped: false }],
        }],
      }));
      const body = { data: { type: 'agent-pools', attributes: { name: 'web-only', 'organization-scoped': false }, relationships: { 'allowed-projects': { data: [{ id: PRJ_WEB, type: 'projects' }] } } } };
      assert.equal((await t.call('POST', '/organizations/org/agent-pools', { body })).status, 201);
    });
    after(() => t.close());

    it('filter[allowed_projects][name] and filter[allowed_workspaces][name]: pools allowing it, or organization-scoped; an unknown name matches none', async () => {
      const list = (query: string) => t.call('GET', `/organizations/org/agent-pools?${query}`);
      const web = await list('filter%5Ballowed_projects%5D%5Bname%5D=web');
      assert.equal(web.status, 200);
      assert.deepEqual(names(web), ['everywhere', 'web-only']);
      assert.deepEqual(web.json.meta['status-counts'], { total: 4, matching: 2 });
      assert.deepEqual(names(await list('filter[allowed_projects][name]=ops-project')), ['everywhere']);
      assert.deepEqual(names(await list('filter[allowed_projects][name]=no-such-project')), []);
      assert.deepEqual(names(await list('filter[allowed_workspaces][name]=app')), ['everywhere', 'app-only']);
      assert.deepEqual(names(await list('filter[allowed_workspaces][name]=ops')), ['everywhere']);
      assert.deepEqual(names(await list('filter[allowed_workspaces][name]=app&filter[allowed_projects][name]=web')), ['everywhere']);
    });

    it('every pool, listed, shown, created or updated, carries relationships.organization', async () => {
      const listed = await t.call('GET', '/organizations/org/agent-pools');
      for (const pool of listed.json.data) assert.deepEqual(pool.relationships.organization, { data: { id: 'org', type: 'organizations' } });
      const id = listed.json.data[0].id as string;
      assert.deepEqual((await t.call('GET', `/agent-pools/${id}`)).json.data.relationships.organization.data, { id: 'org', type: 'organizations' });
      const patched = await t.call('PATCH', `/agent-pools/${id}`, { body: poolBody({ 'organization-scoped': true }) });
      assert.deepEqual(patched.json.data.relationships.organization.data, { id: 'org', type: 'organizations' });
    });
  });
}

