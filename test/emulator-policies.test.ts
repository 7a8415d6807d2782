import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ISO_MS, policyBody, TestEmulator, orgSeed } from './helpers/emulator.js';

const SET_A = 'polset-aaaaaaaaaaaaaaaa';

describe('emulator policies', () => {
  let t: TestEmulator;
  before(async () => {
    t = await TestEmulator.start(orgSeed());
  });
  after(() => t.close());

  it('creates a policy: 200, pol- id, no download link, updated-at null until the first upload', async () => {
    const created = await t.call('POST', '/organizations/org/policies', { body: policyBody('deny-all', { 'enforcement-level': 'soft-mandatory', description: 'd' }, [SET_A]) });
    assert.equal(created.status, 200);
    assert.equal(created.headers.get('content-type'), 'application/vnd.api+json');
    const data = created.json.data;
    assert.match(data.id, /^pol-[A-Za-z0-9]{16}$/);
    assert.equal(data.type, 'policies');
    assert.deepEqual(data.attributes, {
      name: 'deny-all',
      description: 'd',
      kind: 'native',
      'enforcement-level': 'soft-mandatory',
      enforce: [],
      'policy-set-count': 1,
      'updated-at': null,
    });
    assert.deepEqual(data.relationships, {
      organization: { data: { id: 'org', type: 'organizations' } },
      'policy-sets': { data: [{ id: SET_A, type: 'policy-sets' }] },
    });
    assert.deepEqual(data.links, { self: `/api/v2/policies/${data.id}`, upload: `/api/v2/policies/${data.id}/upload` });

    const shown = await t.call('GET', `/policies/${data.id}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.json.data.attributes['updated-at'], null);
    assert.equal(shown.json.data.links.download, `/api/v2/policies/${data.id}/download`);

    const uploaded = await t.call('PUT', `/policies/${data.id}/upload`, { raw: 'main = rule { true }\n', contentType: 'application/octet-stream' });
    assert.equal(uploaded.status, 200);
    assert.equal(uploaded.json.data.type, 'policies');
    assert.match(uploaded.json.data.attributes['updated-at'], ISO_MS);
    assert.deepEqual(uploaded.json.data.attributes.enforce, [{ path: 'deny-all.native', mode: 'soft-mandatory' }], 'enforce is filled once code is uploaded');
    const again = await t.call('GET', `/policies/${data.id}`);
    assert.equal(again.json.data.attributes['updated-at'], uploaded.json.data.attributes['updated-at']);
  });

  it('creates an opa policy from the deprecated enforce array and a query', async () => {
    const res = await t.call('POST', '/organizations/org/policies', {
      body: policyBody('opa-one', { kind: 'opa', query: 'data.terraform.deny', enforce: [{ path: 'opa-one.rego', mode: 'mandatory' }] }),
    });
    assert.equal(res.status, 200);
    const attrs = res.json.data.attributes;
    assert.equal(attrs.kind, 'opa');
    assert.equal(attrs.query, 'data.terraform.deny');
    assert.equal(attrs['enforcement-level'], 'mandatory');
    assert.deepEqual(attrs.enforce, [], 'empty until code is uploaded');
    assert.equal(attrs['policy-set-count'], 0);
  });

  it('keeps enforce and enforcement-level consistent on update, whichever is sent', async () => {
    const created = await t.call('POST', '/organizations/org/policies', { body: policyBody('levels', { 'enforcement-level': 'advisory' }) });
    const id = created.json.data.id;
    await t.call('PUT', `/policies/${id}/upload`, { raw: 'main = rule { true }\n', contentType: 'application/octet-stream' });
    const byLevel = await t.call('PATCH', `/policies/${id}`, { body: { data: { type: 'policies', attributes: { 'enforcement-level': 'hard-mandatory' } } } });
    assert.equal(byLevel.status, 200);
    assert.equal(byLevel.json.data.attributes['enforcement-level'], 'hard-mandatory');
    assert.deepEqual(byLevel.json.data.attributes.enforce, [{ path: 'levels.native', mode: 'hard-mandatory' }]);
    assert.equal(byLevel.json.data.relationships['policy-sets'], undefined, 'no sets: omitted from update');
    assert.equal(byLevel.json.data.links.download, `/api/v2/policies/${id}/download`);

    const byEnforce = await t.call('PATCH', `/policies/${id}`, { body: { data: { type: 'policies', attributes: { enforce: [{ path: 'levels.native', mode: 'soft-mandatory' }] } } } });
    assert.equal(byEnforce.json.data.attributes['enforcement-level'], 'soft-mandatory');
    assert.deepEqual(byEnforce.json.data.attributes.enforce, [{ path: 'levels.native', mode: 'soft-mandatory' }]);

    const otherPath = await t.call('PATCH', `/policies/${id}`, { body: { data: { type: 'policies', attributes: { enforce: [{ path: 'other.native', mode: 'advisory' }] } } } });
    assert.equal(otherPath.json.data.attributes['enforcement-level'], 'hard-mandatory', 'a native path that does not match the name means hard-mandatory');

    const description = await t.call('PATCH', `/policies/${id}`, { body: { data: { type: 'policies', attributes: { description: 'new' } } } });
    assert.equal(description.json.data.attributes.description, 'new');
    assert.equal(description.json.data.attributes['enforcement-level'], 'hard-mandatory');
  });

  it('downloads by a 302 to a temporary URL that serves the bytes exactly, without Authorization', async () => {
    const created = await t.call('POST', '/organizations/org/policies', { body: policyBody('crlf', { 'enforcement-level': 'advisory' }) });
    const id = created.json.data.id;
    const before = await t.call('GET', `/policies/${id}/download`);
    assert.equal(before.status, 404, 'no code uploaded yet');
    const code = Buffer.from('import "tfplan"\r\nmain = rule {\r\n  true\r\n}\r\n\u00e9\n', 'utf8');
    assert.equal((await t.call('PUT', `/policies/${id}/upload`, { raw: code, contentType: 'application/octet-stream' })).status, 200);
    const redirect = await t.call('GET', `/policies/${id}/download`);
    assert.equal(redirect.status, 302);
    const location = redirect.headers.get('location') ?? '';
    assert.ok(location.startsWith(`${t.emu.origin}/_emulator/blobs/`), location);
    const blob = await fetch(location);
    assert.equal(blob.status, 200);
    assert.match(blob.headers.get('content-type') ?? '', /^text\/plain/);
    assert.deepEqual(Buffer.from(await blob.arrayBuffer()), code);
    const followed = await t.call('GET', `/policies/${id}/download`, { redirect: 'follow' });
    assert.equal(followed.text, code.toString('utf8'));
    assert.equal((await fetch(`${t.emu.origin}/_emulator/blobs/not-a-key`)).status, 404);
  });

  it('accepts an empty upload and refuses a non-octet-stream upload with 415', async () => {
    const created = await t.call('POST', '/organizations/org/policies', { body: policyBody('empty', { 'enforcement-level': 'advisory' }) });
    const id = created.json.data.id;
    assert.equal((await t.call('PUT', `/policies/${id}/upload`, { raw: '', contentType: 'application/octet-stream' })).status, 200);
    const wrong = await t.call('PUT', `/policies/${id}/upload`, { raw: 'x', contentType: 'text/plain' });
    assert.equal(wrong.status, 415);
    assert.ok(Array.isArray(wrong.json.errors));
    const redirect = await t.call('GET', `/policies/${id}/download`, { redirect: 'follow' });
    assert.equal(redirect.status, 200);
    assert.equal(redirect.text, '');
  });

  it('lists with search[name] substring, filter[kind] and include=policy_sets', async () => {
    const res = await t.call('GET', '/organizations/org/policies?search%5Bname%5D=ny-al&include=policy_sets');
    assert.equal(res.status, 200);
    assert.deepEqual(res.json.data.map((p: { attributes: { name: string } }) => p.attributes.name), ['deny-all']);
    assert.deepEqual(res.json.included, [{ id: SET_A, type: 'policy-sets' }]);
    const opa = await t.call('GET', '/organizations/org/policies?filter[kind]=opa');
    assert.deepEqual(opa.json.data.map((p: { attributes: { name: string } }) => p.attributes.name), ['opa-one']);
    assert.equal(opa.json.data[0].relationships['policy-sets'], undefined, 'no sets: omitted from list');
    assert.ok(opa.json.data[0].links.download);
    const shown = await t.call('GET', `/policies/${res.json.data[0].id}?include=policy_sets`);
    assert.deepEqual(shown.json.included, [{ id: SET_A, type: 'policy-sets' }]);
  });

  it('deletes with 204, then the policy is gone', async () => {
    const created = await t.call('POST', '/organizations/org/policies', { body: policyBody('doomed', { 'enforcement-level': 'advisory' }) });
    const id = created.json.data.id;
    const deleted = await t.call('DELETE', `/policies/${id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assert.equal((await t.call('GET', `/policies/${id}`)).status, 404);
    assert.equal((await t.call('DELETE', `/policies/${id}`)).status, 404);
  });

  it('changes a policy set\'s policies by relationship: POST adds, DELETE removes, 204; unknown set 404, unknown policy 422 changing nothing', async () => {
    const SET_B = 'polset-bbbbbbbbbbbbbbbb';
    const made = await t.call('POST', '/organizations/org/policies', { body: policyBody('member', {}, [SET_A]) });
    const id = made.json.data.id as string;
    const setsOf = async () => ((await t.call('GET', `/policies/${id}`)).json.data.relationships['policy-sets'].data as Array<{ id: string }>).map((r) => r.id).sort();
    const members = (ids: string[]) => ({ data: ids.map((pol) => ({ id: pol, type: 'policies' })) });
    const added = await t.call('POST', `/policy-sets/${SET_B}/relationships/policies`, { body: members([id]) });
    assert.equal(added.status, 204, added.text);
    assert.equal(added.text, '');
    assert.deepEqual(await setsOf(), [SET_A, SET_B]);
    assert.equal((await t.call('GET', `/policies/${id}`)).json.data.attributes['policy-set-count'], 2);
    assert.equal((await t.call('POST', `/policy-sets/${SET_B}/relationships/policies`, { body: members([id]) })).status, 204, 'adding again changes nothing');
    assert.deepEqual(await setsOf(), [SET_A, SET_B]);

    const removed = await t.call('DELETE', `/policy-sets/${SET_A}/relationships/policies`, { body: members([id]) });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(await setsOf(), [SET_B]);

    const unknownSet = await t.call('POST', '/policy-sets/polset-nosuchset0000000/relationships/policies', { body: members([id]) });
    assert.equal(unknownSet.status, 404);
    assert.equal((await t.call('DELETE', '/policy-sets/polset-nosuchset0000000/relationships/policies', { body: members([id]) })).status, 404);
    const unknownPolicy = await t.call('POST', `/policy-sets/${SET_A}/relationships/policies`, { body: members([id, 'pol-nosuchpolicy00000']) });
    assert.equal(unknownPolicy.status, 422);
    assert.match(unknownPolicy.json.errors[0].detail, /policy pol-nosuchpolicy00000 not found/);
    assert.deepEqual(await setsOf(), [SET_B], 'a refused request changes nothing');
    assert.equal((await t.call('POST', `/policy-sets/${SET_A}/relationships/policies`, { body: { data: [{ id, type: 'workspaces' }] } })).status, 422);
    assert.equal((await t.call('POST', `/policy-sets/${SET_A}/relationships/policies`, { body: members([id]), contentType: 'application/json' })).status, 415);
  });
});

for (const nativeKind of ['native', 'sentinel'] as const) {
  describe(`emulator policy lists sorted as the vendor's client asks (${nativeKind} dialect)`, () => {
    let t: TestEmulator;
    before(async () => {
      // Each reading of the emulator's clock a second later: the uploads are ordered in time without waiting.
      let time = Date.parse('2026-01-01T00:00:00Z');
      t = await TestEmulator.start(orgSeed({ nativeKind }), { now: () => (time += 1_000) });
      for (const name of ['bravo', 'alpha', 'charlie']) {
        const made = await t.call('POST', '/organizations/org/policies', { body: policyBody(name, { kind: nativeKind }) });
        assert.equal(made.status, 200, made.text);
        if (name !== 'charlie') {
          // Uploaded one after the other: bravo first, then alpha; charlie never.
          assert.equal((await t.call('PUT', `/policies/${made.json.data.id}/upload`, { raw: 'main = rule { true }\n', contentType: 'application/octet-stream' })).status, 200);
        }
      }
    });
    after(() => t.close());

    const listed = async (query: string): Promise<string[]> => {
      const res = await t.call('GET', `/organizations/org/policies${query}`);
      assert.equal(res.status, 200, res.text);
      return res.json.data.map((p: { attributes: { name: string } }) => p.attributes.name);
    };

    it('sort=name, -name, updated-at and -updated-at; no sort keeps the order of creation; page by page in that order', async () => {
      assert.deepEqual(await listed(''), ['bravo', 'alpha', 'charlie']);
      assert.deepEqual(await listed('?sort=name'), ['alpha', 'bravo', 'charlie']);
      assert.deepEqual(await listed('?sort=-name'), ['charlie', 'bravo', 'alpha']);
      assert.deepEqual(await listed('?sort=updated-at'), ['charlie', 'bravo', 'alpha'], 'never uploaded first');
      assert.deepEqual(await listed('?sort=-updated-at'), ['alpha', 'bravo', 'charlie']);
      assert.deepEqual(await listed('?sort=-name&page%5Bsize%5D=2&page%5Bnumber%5D=2'), ['alpha']);
      assert.deepEqual(await listed(`?sort=name&filter%5Bkind%5D=${nativeKind}`), ['alpha', 'bravo', 'charlie']);
    });

    it('an unknown sort key is a 400 naming the keys', async () => {
      const res = await t.call('GET', '/organizations/org/policies?sort=kind');
      assert.equal(res.status, 400);
      assert.match(res.json.errors[0].detail, /sort must be name or updated-at/);
    });
  });
}

