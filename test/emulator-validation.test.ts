import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { policyBody, poolBody, type RawResponse, TestEmulator, orgSeed } from './helpers/emulator.js';

function assert422(res: RawResponse, pointer: string, detail?: RegExp): void {
  assert.equal(res.status, 422, res.text);
  assert.equal(res.json.errors.length, 1);
  const [error] = res.json.errors;
  assert.equal(error.status, '422');
  assert.equal(error.title, 'invalid attribute');
  assert.equal(error.source.pointer, pointer);
  if (detail) assert.match(error.detail, detail);
}

describe('emulator validation', () => {
  let t: TestEmulator;
  let existingId: string;
  let opaId: string;
  before(async () => {
    t = await TestEmulator.start(orgSeed({ organizations: [{ ...orgSeed().organizations[0]!, maxAgentPools: 2 }] }));
    const res = await t.call('POST', '/organizations/org/policies', { body: policyBody('taken', { 'enforcement-level': 'advisory' }) });
    existingId = res.json.data.id;
    const opa = await t.call('POST', '/organizations/org/policies', { body: policyBody('opa-x', { kind: 'opa', query: 'data.x', 'enforcement-level': 'mandatory' }) });
    opaId = opa.json.data.id;
  });
  after(() => t.close());

  const create = (body: unknown): Promise<RawResponse> => t.call('POST', '/organizations/org/policies', { body });

  it('answers a taken name with the documented error document exactly', async () => {
    const res = await create(policyBody('taken', { 'enforcement-level': 'advisory' }));
    assert.equal(res.status, 422);
    assert.deepEqual(res.json, {
      errors: [{ status: '422', title: 'invalid attribute', detail: 'Name has already been taken', source: { pointer: '/data/attributes/name' } }],
    });
  });

  it('refuses each malformed policy create body with 422', async () => {
    assert422(await create({ data: { type: 'agent-pools', attributes: { name: 'x' } } }), '/data/type');
    assert422(await create({ nodata: true }), '/data');
    assert422(await create(policyBody('', {})), '/data/attributes/name');
    assert422(await create({ data: { type: 'policies', attributes: {} } }), '/data/attributes/name', /blank/);
    assert422(await create(policyBody('bad name!', {})), '/data/attributes/name');
    assert422(await create({ data: { type: 'policies', attributes: { name: 5 } } }), '/data/attributes/name');
    assert422(await create(policyBody('k', { kind: 'sentinel' })), '/data/attributes/kind');
    assert422(await create(policyBody('l1', { 'enforcement-level': 'mandatory' })), '/data/attributes/enforcement-level');
    assert422(await create(policyBody('l2', { kind: 'opa', query: 'data.x', 'enforcement-level': 'hard-mandatory' })), '/data/attributes/enforcement-level');
    assert422(await create(policyBody('l3', { kind: 'opa', query: 'data.x', enforce: [{ path: 'l3.rego', mode: 'soft-mandatory' }] })), '/data/attributes/enforce/0/mode');
    assert422(await create(policyBody('q1', { query: 'data.x', 'enforcement-level': 'advisory' })), '/data/attributes/query');
    assert422(await create(policyBody('q2', { kind: 'opa', 'enforcement-level': 'advisory' })), '/data/attributes/query');
    assert422(await create(policyBody('t1', { description: 5 })), '/data/attributes/description');
    assert422(await create(policyBody('t2', { enforce: 'advisory' })), '/data/attributes/enforce');
    assert422(await create(policyBody('t3', { enforce: [{ path: 't3.native' }] })), '/data/attributes/enforce/0');
    assert422(await create(policyBody('t4', { kind: 'opa', query: 7 })), '/data/attributes/query');
    assert422(await create(policyBody('b1', { 'enforcement-level': 'advisory', enforce: [{ path: 'b1.native', mode: 'advisory' }] })),
      '/data/attributes/enforce', /not both/);
    assert422(await create(policyBody('s1', { 'enforcement-level': 'advisory' }, ['polset-doesnotexist0000'])), '/data/relationships/policy-sets/data/0');
    const list = await t.call('GET', '/organizations/org/policies');
    assert.deepEqual(list.json.data.map((p: { attributes: { name: string } }) => p.attributes.name), ['taken', 'opa-x'], 'nothing was created');
  });

  it('refuses each malformed policy update body with 422', async () => {
    const update = (id: string, attributes: Record<string, unknown>, type = 'policies'): Promise<RawResponse> =>
      t.call('PATCH', `/policies/${id}`, { body: { data: { type, attributes } } });
    assert422(await update(existingId, { 'enforcement-level': 'advisory' }, 'policy'), '/data/type');
    assert422(await update(existingId, { 'enforcement-level': 'mandatory' }), '/data/attributes/enforcement-level');
    assert422(await update(existingId, { name: 'renamed' }), '/data/attributes/name');
    assert422(await update(existingId, { kind: 'opa' }), '/data/attributes/kind');
    assert422(await update(existingId, { description: false }), '/data/attributes/description');
    assert422(await update(opaId, { query: '' }), '/data/attributes/query');
    const shown = await t.call('GET', `/policies/${existingId}`);
    assert.equal(shown.json.data.attributes['enforcement-level'], 'advisory', 'unchanged');
  });

  it('a PATCH carrying a query for a native policy answers 200 and ignores it', async () => {
    const res = await t.call('PATCH', `/policies/${existingId}`, { body: { data: { type: 'policies', attributes: { query: 'data.x', description: 'q' } } } });
    assert.equal(res.status, 200);
    assert.equal(res.json.data.attributes.description, 'q');
    assert.equal(res.json.data.attributes.query, undefined);
    const state = (await t.control('GET', '/state')).json;
    const record = state.organizations[0].policies.find((p: { id: string }) => p.id === existingId);
    assert.equal(record.query, null, 'nothing stored');
  });

  it('a create with both enforce and enforcement-level is accepted once the switch is off', async () => {
    await t.control('PUT', '/behaviour', { 'reject-enforce-with-level': false });
    try {
      const res = await create(policyBody('both-ok', { 'enforcement-level': 'advisory', enforce: [{ path: 'both-ok.native', mode: 'soft-mandatory' }] }));
      assert.equal(res.status, 200);
      assert.equal(res.json.data.attributes['enforcement-level'], 'advisory', 'enforcement-level wins');
      assert.equal((await t.call('DELETE', `/policies/${res.json.data.id}`)).status, 204);
    } finally {
      await t.control('PUT', '/behaviour', { 'reject-enforce-with-level': true });
    }
  });

  it('answers 415 to a POST, PATCH or DELETE without the JSON:API media type, DELETE with no body included', async () => {
    const body = JSON.stringify({ data: { type: 'policies', attributes: { description: 'x' } } });
    const withoutType = [
      await t.call('POST', '/organizations/org/policies', { raw: JSON.stringify(policyBody('m0', { 'enforcement-level': 'advisory' })), contentType: null }),
      await t.call('PATCH', `/policies/${existingId}`, { raw: body, contentType: null }),
      await t.call('PATCH', `/policies/${existingId}`, { raw: body, contentType: 'application/json' }),
      await t.call('DELETE', `/policies/${existingId}`, { contentType: null }),
      await t.call('DELETE', `/policies/${existingId}`, { contentType: 'application/json' }),
      await t.call('DELETE', '/agent-pools/apool-whatever', { contentType: null }),
      await t.call('DELETE', '/agents/agent-whatever', { contentType: null }),
    ];
    assert.deepEqual(withoutType.map((res) => res.status), [415, 415, 415, 415, 415, 415, 415]);
    for (const res of withoutType) assert.equal(res.json.errors[0].status, '415');
    assert.equal((await t.call('GET', `/policies/${existingId}`)).status, 200, 'not deleted, and a GET needs no type');
  });

  it('answers a wrong media type with 415 and a body that is not JSON with 400, both as error documents', async () => {
    const wrongType = await t.call('POST', '/organizations/org/policies', { raw: JSON.stringify(policyBody('m1', {})), contentType: 'application/json' });
    assert.equal(wrongType.status, 415);
    assert.equal(wrongType.json.errors[0].status, '415');
    const notJson = await t.call('POST', '/organizations/org/policies', { raw: '{"data": ', contentType: 'application/vnd.api+json' });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.errors[0].status, '400');
    const withCharset = await t.call('POST', '/organizations/org/policies', {
      raw: JSON.stringify(policyBody('m2', { 'enforcement-level': 'advisory' })),
      contentType: 'application/vnd.api+json; charset=utf-8',
    });
    assert.equal(withCharset.status, 200);
  });

  it('refuses malformed agent pool bodies with 422, and a pool over the organization limit', async () => {
    const createPool = (body: unknown): Promise<RawResponse> => t.call('POST', '/organizations/org/agent-pools', { body });
    assert422(await createPool({ data: { type: 'policies', attributes: { name: 'p' } } }), '/data/type');
    assert422(await createPool(poolBody({})), '/data/attributes/name');
    assert422(await createPool(poolBody({ name: 'has space' })), '/data/attributes/name');
    assert422(await createPool(poolBody({ name: 'p', 'organization-scoped': 'yes' })), '/data/attributes/organization-scoped');
    assert422(await createPool(poolBody({ name: 'p' }, ['ws-unknown000000000'])), '/data/relationships/allowed-workspaces/data/0');
    const first = await createPool(poolBody({ name: 'first' }));
    assert.equal(first.status, 201);
    assert422(await createPool(poolBody({ name: 'first' })), '/data/attributes/name', /already been taken/);
    const second = await createPool(poolBody({ name: 'second' }));
    assert.equal(second.status, 201);
    assert422(await createPool(poolBody({ name: 'third' })), '/data', /limit of 2/);

    const patch = (body: unknown): Promise<RawResponse> => t.call('PATCH', `/agent-pools/${second.json.data.id}`, { body });
    assert422(await patch(poolBody({ name: 'first' })), '/data/attributes/name', /already been taken/);
    assert422(await patch({ data: { type: 'agent-pool', attributes: {} } }), '/data/type');
    assert422(await patch(poolBody({ 'organization-scoped': 1 })), '/data/attributes/organization-scoped');
    assert422(await patch(poolBody({}, ['ws-unknown000000000'])), '/data/relationships/allowed-workspaces/data/0');
    assert.equal((await patch(poolBody({ name: 'second' }))).status, 200, 'its own name is not taken');
  });

  it('allows one agent pool per organization by default', async () => {
    const single = await TestEmulator.start(orgSeed());
    try {
      const first = await single.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'only' }) });
      assert.equal(first.status, 201);
      assert422(await single.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'second' }) }), '/data', /limit of 1/);
      assert.equal((await single.call('DELETE', `/agent-pools/${first.json.data.id}`)).status, 204);
      assert.equal((await single.call('POST', '/organizations/org/agent-pools', { body: poolBody({ name: 'second' }) })).status, 201);
    } finally {
      await single.close();
    }
  });
});
