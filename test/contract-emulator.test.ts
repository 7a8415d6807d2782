/**
 * The sequences of the vendor's own client integration tests, replayed against the emulator over raw
 * HTTP: what the real service answers is what the emulator must answer. test/contract-client.test.ts
 * replays the same sequences through the client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { contractSeed, NATIVE_CODE, WS_APP, WS_OPS } from './helpers/contract-seed.js';
import { ISO_MS, policyBody, poolBody, TestEmulator, type RawResponse } from './helpers/emulator.js';

type Resource = { id: string; attributes: Record<string, unknown>; relationships: Record<string, { data: Array<{ id: string }> }>; links: Record<string, string> };

const names = (res: RawResponse): string[] => (res.json.data as Resource[]).map((r) => String(r.attributes['name'])).sort();
const allowed = (resource: Resource): string[] => resource.relationships['allowed-workspaces']!.data.map((w) => w.id);

describe('the vendor client test sequences, against the emulator', () => {
  let t: TestEmulator;
  before(async () => {
    t = await TestEmulator.start(contractSeed());
  });
  after(() => t.close());

  it('policy lifecycle: create with enforce only, show, 404 download, upload, exact download, empty upload', async () => {
    const created = await t.call('POST', '/organizations/org/policies', {
      body: policyBody('lifecycle', { kind: 'native', enforce: [{ path: 'lifecycle.native', mode: 'soft-mandatory' }] }),
    });
    assert.ok(created.status >= 200 && created.status < 300, created.text);
    const policy = created.json.data as Resource;
    assert.equal(policy.links['upload'], `/api/v2/policies/${policy.id}/upload`);
    assert.equal(policy.links['download'], undefined, 'no download link in the create response');
    assert.equal(policy.attributes['updated-at'], null);

    const shown = (await t.call('GET', `/policies/${policy.id}`)).json.data as Resource;
    assert.equal(shown.attributes['enforcement-level'], 'soft-mandatory');
    assert.equal(shown.links['download'], `/api/v2/policies/${policy.id}/download`);

    assert.equal((await t.call('GET', shown.links['download']!.replace('/api/v2', ''))).status, 404, 'no code uploaded yet');
    const upload = await t.call('PUT', `/policies/${policy.id}/upload`, { raw: NATIVE_CODE, contentType: 'application/octet-stream' });
    assert.equal(upload.status, 200);
    const downloaded = await t.call('GET', `/policies/${policy.id}/download`, { redirect: 'follow' });
    assert.equal(downloaded.status, 200);
    assert.equal(downloaded.text, NATIVE_CODE);
    assert.match(String(((await t.call('GET', `/policies/${policy.id}`)).json.data as Resource).attributes['updated-at']), ISO_MS);

    const empty = await t.call('PUT', `/policies/${policy.id}/upload`, { raw: '', contentType: 'application/octet-stream' });
    assert.equal(empty.status, 200);
    assert.equal((await t.call('GET', `/policies/${policy.id}/download`, { redirect: 'follow' })).text, '');
  });

  it('listing three policies: a page past the end, search[name] and filter[kind]', async () => {
    for (const body of [
      policyBody('list-native-one', { 'enforcement-level': 'advisory' }),
      policyBody('list-native-two', { 'enforcement-level': 'hard-mandatory' }),
      policyBody('list-opa', { kind: 'opa', query: 'data.terraform.deny', 'enforcement-level': 'mandatory' }),
    ]) {
      assert.equal((await t.call('POST', '/organizations/listing/policies', { body })).status, 200);
    }
    const past = await t.call('GET', '/organizations/listing/policies?page%5Bnumber%5D=999&page%5Bsize%5D=100');
    assert.equal(past.status, 200);
    assert.deepEqual(past.json.data, []);
    assert.equal(past.json.meta.pagination['current-page'], 999);
    assert.equal(past.json.meta.pagination['total-count'], 3);
    assert.equal(past.json.meta.pagination['next-page'], null);

    const searched = await t.call('GET', '/organizations/listing/policies?search%5Bname%5D=list-native-one');
    assert.deepEqual(names(searched), ['list-native-one']);
    assert.equal(searched.json.meta.pagination['total-count'], 1);
    assert.equal(searched.json.meta.pagination['current-page'], 1);
    const opa = await t.call('GET', '/organizations/listing/policies?filter%5Bkind%5D=opa');
    assert.deepEqual(names(opa), ['list-opa']);
    assert.equal(opa.json.meta.pagination['total-count'], 1);
    assert.deepEqual(names(await t.call('GET', '/organizations/listing/policies?filter%5Bkind%5D=native')), ['list-native-one', 'list-native-two']);
  });

  it('a level-only PATCH of an opa policy changes the level and keeps the name and description', async () => {
    const created = await t.call('POST', '/organizations/org/policies', {
      body: policyBody('level-only', { kind: 'opa', query: 'data.x.deny', description: 'kept as it is', 'enforcement-level': 'mandatory' }),
    });
    const id = (created.json.data as Resource).id;
    const patched = await t.call('PATCH', `/policies/${id}`, { body: { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } } });
    assert.equal(patched.status, 200);
    const shown = (await t.call('GET', `/policies/${id}`)).json.data as Resource;
    assert.deepEqual([shown.attributes['enforcement-level'], shown.attributes['name'], shown.attributes['description']], ['advisory', 'level-only', 'kept as it is']);
  });

  it('pool relationships: a rename keeps allowed-workspaces, [] empties them, the workspace filter', async () => {
    const build = ((await t.call('GET', '/organizations/org/agent-pools')).json.data as Resource[]).find((p) => p.attributes['name'] === 'build')!;
    assert.deepEqual(allowed(build), [WS_APP]);
    const renamed = await t.call('PATCH', `/agent-pools/${build.id}`, { body: poolBody({ name: 'builders' }) });
    assert.equal(renamed.status, 200);
    assert.deepEqual(allowed(renamed.json.data), [WS_APP], 'a rename alone keeps allowed-workspaces');
    assert.equal(renamed.json.data.attributes['organization-scoped'], true, 'and takes the documented scope default, as modelled');

    const emptied = await t.call('PATCH', `/agent-pools/${build.id}`, { body: poolBody({ 'organization-scoped': false }, []) });
    assert.deepEqual(allowed(emptied.json.data), []);
    assert.equal(emptied.json.data.attributes['name'], 'builders');

    await t.call('PATCH', `/agent-pools/${build.id}`, { body: poolBody({ 'organization-scoped': false }, [WS_APP]) });
    await t.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'everyone', 'organization-scoped': true }) });
    await t.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'ops-only', 'organization-scoped': false }, [WS_OPS]) });
    assert.deepEqual(names(await t.call('GET', '/organizations/org/agent-pools?filter%5Ballowed_workspaces%5D%5Bname%5D=app')), ['builders', 'everyone']);
    assert.deepEqual(names(await t.call('GET', '/organizations/org/agent-pools?filter%5Ballowed_workspaces%5D%5Bname%5D=ops')), ['everyone', 'ops-only']);
  });

  it('deletes: 204 then 404 for a policy and a pool; an idle agent 412, an exited one 204 then 404', async () => {
    const policy = (await t.call('POST', '/organizations/org/policies', { body: policyBody('doomed', { 'enforcement-level': 'advisory' }) })).json.data as Resource;
    assert.equal((await t.call('DELETE', `/policies/${policy.id}`)).status, 204);
    assert.equal((await t.call('DELETE', `/policies/${policy.id}`)).status, 404);

    const pool = ((await t.call('GET', '/organizations/org/agent-pools')).json.data as Resource[]).find((p) => p.attributes['name'] === 'everyone')!;
    assert.equal((await t.call('DELETE', `/agent-pools/${pool.id}`)).status, 204);
    assert.equal((await t.call('DELETE', `/agent-pools/${pool.id}`)).status, 404);

    const builders = ((await t.call('GET', '/organizations/org/agent-pools')).json.data as Resource[]).find((p) => p.attributes['name'] === 'builders')!;
    const agents = (await t.call('GET', `/agent-pools/${builders.id}/agents`)).json.data as Resource[];
    const idOf = (status: string): string => agents.find((a) => a.attributes['status'] === status)!.id;
    assert.equal((await t.call('DELETE', `/agents/${idOf('idle')}`)).status, 412);
    assert.equal((await t.call('DELETE', `/agents/${idOf('exited')}`)).status, 204);
    assert.equal((await t.call('DELETE', `/agents/${idOf('exited')}`)).status, 404);
  });
});
