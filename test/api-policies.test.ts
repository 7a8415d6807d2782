import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import type { CreatePolicyInput } from '../src/api/types.js';
import { silentLogger } from '../src/logger.js';
import { assertErrorDocument, assertPolicyResource, at } from './helpers/api-documents.js';
import { rejectsWithStatus } from './helpers/api-assert.js';
import { startApiFixture, type ApiFixture } from './helpers/api-fixture.js';


describe('policy endpoints against the emulator', () => {
  let f: ApiFixture;
  before(async () => { f = await startApiFixture(); });
  after(async () => { await f.close(); });

  it('creates a native policy: 200, exact body, every documented field', async () => {
    await f.emulator.clearRequests();
    const created = await f.client.createPolicy('acme', {
      name: 'deny-public-s3', kind: 'native', description: 'No *public* buckets', enforcementLevel: 'soft-mandatory', query: null,
      policySetIds: ['polset-base', 'polset-extra'],
    });
    assert.match(created.id, /^pol-/);
    assert.deepEqual({ ...created, id: '' }, {
      id: '', name: 'deny-public-s3', description: 'No *public* buckets', kind: 'native', query: null, enforcementLevel: 'soft-mandatory',
      policySetCount: 2, policySetIds: ['polset-base', 'polset-extra'], updatedAt: null, organization: 'acme',
      links: { self: `/api/v2/policies/${created.id}`, upload: `/api/v2/policies/${created.id}/upload`, download: null },
    });
    const [logged] = await f.emulator.requests();
    assert.deepEqual([logged?.method, logged?.path, logged?.status, logged?.['content-type']],
      ['POST', '/organizations/acme/policies', 200, 'application/vnd.api+json']);
    const shown = await f.emulator.call('GET', `/policies/${created.id}`);
    assert.equal(shown.status, 200);
    assertPolicyResource(at(shown.json, 'data'), {
      name: 'deny-public-s3', description: 'No *public* buckets', kind: 'native', query: null, level: 'soft-mandatory',
      policySetIds: ['polset-base', 'polset-extra'], organization: 'acme', uploaded: false, hasDownload: true,
    });
  });

  it('the raw creation response has every documented field and no download link', async () => {
    const body = { data: { type: 'policies', attributes: { name: 'raw-opa', kind: 'opa', query: 'data.x.deny', 'enforcement-level': 'mandatory' } } };
    const created = await f.emulator.call('POST', '/organizations/acme/policies', { body });
    assert.equal(created.status, 200);
    assertPolicyResource(at(created.json, 'data'), {
      name: 'raw-opa', description: null, kind: 'opa', query: 'data.x.deny', level: 'mandatory', policySetIds: [],
      organization: 'acme', uploaded: false, hasDownload: false,
    });
  });

  it('creates, shows, updates and lists an opa policy with its query', async () => {
    const created = await f.client.createPolicy('acme', {
      name: 'opa-tags', kind: 'opa', description: null, enforcementLevel: 'advisory', query: 'data.terraform.tags.deny', policySetIds: [],
    });
    assert.equal(created.query, 'data.terraform.tags.deny');
    assert.deepEqual(created.policySetIds, []);
    const shown = await f.client.getPolicy(created.id);
    assert.deepEqual(shown, { ...created, links: { ...created.links, download: `/api/v2/policies/${created.id}/download` } });

    const updated = await f.client.updatePolicy(created, { description: 'tags', enforcementLevel: 'mandatory', query: 'data.terraform.tags.violations' });
    assert.deepEqual([updated.description, updated.enforcementLevel, updated.query], ['tags', 'mandatory', 'data.terraform.tags.violations']);
    const raw = await f.emulator.call('GET', `/policies/${created.id}`);
    assertPolicyResource(at(raw.json, 'data'), {
      name: 'opa-tags', description: 'tags', kind: 'opa', query: 'data.terraform.tags.violations', level: 'mandatory', policySetIds: [],
      organization: 'acme', uploaded: false, hasDownload: true,
    });

    const opa = await f.client.listPolicies('acme', { kind: 'opa' });
    assert.ok(opa.length >= 2 && opa.every((p) => p.kind === 'opa'));
    const found = await f.client.listPolicies('acme', { search: 'opa-tags' });
    assert.deepEqual(found.map((p) => p.name), ['opa-tags']);
    const rawList = await f.emulator.call('GET', '/organizations/acme/policies?search%5Bname%5D=opa-tags');
    assertPolicyResource(at(rawList.json, 'data.0'), {
      name: 'opa-tags', description: 'tags', kind: 'opa', query: 'data.terraform.tags.violations', level: 'mandatory', policySetIds: [],
      organization: 'acme', uploaded: false, hasDownload: true,
    });
  });

  it('uploads code as octet-stream and downloads it byte for byte through the redirect', async () => {
    const policy = await f.client.createPolicy('acme', {
      name: 'code-roundtrip', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
    assert.equal(await f.client.downloadPolicy(policy), null, 'a 404 before any upload means no code');
    const code = 'import "tfplan/v2"\r\nmain = rule { true } # ünïcode ✓\n';
    const file = join(f.tempDir, 'code-roundtrip.native');
    await writeFile(file, code);
    await f.emulator.clearRequests();
    await f.client.uploadPolicy(policy.id, await readFile(file));
    const [upload] = await f.emulator.requests();
    assert.deepEqual([upload?.method, upload?.path, upload?.status, upload?.['content-type']],
      ['PUT', `/policies/${policy.id}/upload`, 200, 'application/octet-stream']);
    const after = await f.client.getPolicy(policy.id);
    assert.match(after.updatedAt ?? '', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(await f.client.downloadPolicy(after), code);
    const statuses = (await f.emulator.requests()).map((r) => r.status);
    assert.ok(statuses.includes(302), `download answered with a redirect: ${statuses.join(',')}`);

    const empty = join(f.tempDir, 'empty.native');
    await writeFile(empty, '');
    await f.client.uploadPolicy(policy.id, await readFile(empty));
    assert.equal(await f.client.downloadPolicy(policy), '');
  });

  it('deletes a policy (204), after which it is 404 everywhere and deleting it again is done', async () => {
    const policy = await f.client.createPolicy('acme', {
      name: 'short-lived', kind: 'native', description: null, enforcementLevel: 'hard-mandatory', query: null, policySetIds: [],
    });
    await f.emulator.clearRequests();
    await f.client.deletePolicy(policy.id);
    assert.deepEqual((await f.emulator.requests()).map((r) => [r.method, r.status]), [['DELETE', 204]]);
    await rejectsWithStatus(f.client.getPolicy(policy.id), 404, 'GET', `/policies/${policy.id}`);
    await rejectsWithStatus(f.client.updatePolicy(policy, { enforcementLevel: 'advisory' }), 404, 'PATCH', `/policies/${policy.id}`);
    await f.emulator.clearRequests();
    await f.client.deletePolicy(policy.id);
    assert.deepEqual((await f.emulator.requests()).map((r) => [r.method, r.status]), [['DELETE', 404]], 'a second delete is 404, and done');
    assert.equal((await f.client.listPolicies('acme', { search: 'short-lived' })).length, 0);
  });

  it('404 for a missing organization on create and list, with an error document', async () => {
    const input = { name: 'x', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] } satisfies CreatePolicyInput;
    await rejectsWithStatus(f.client.createPolicy('no-such-org', input), 404, 'POST', '/organizations/no-such-org/policies');
    const error = await rejectsWithStatus(f.client.listPolicies('no-such-org'), 404, 'GET', '/organizations/no-such-org/policies?page[number]=1&page[size]=100');
    assert.ok(error.detail !== null && error.detail.length > 0, 'the API error detail is kept');
    assertErrorDocument((await f.emulator.call('GET', '/policies/pol-nothing')).json);
  });

  it('422 for a taken name and a level of the wrong kind, not retried, detail in the message', async () => {
    const input = { name: 'unique-one', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] } satisfies CreatePolicyInput;
    await f.client.createPolicy('acme', input);
    await f.emulator.clearRequests();
    const taken = await rejectsWithStatus(f.client.createPolicy('acme', input), 422, 'POST', '/organizations/acme/policies');
    assert.ok(taken.detail !== null && taken.message.endsWith(taken.detail), taken.message);
    await rejectsWithStatus(f.client.createPolicy('acme', { ...input, name: 'wrong-level', enforcementLevel: 'mandatory' }), 422, 'POST', '/organizations/acme/policies');
    const created = await f.client.createPolicy('acme', { ...input, name: 'level-check' });
    await rejectsWithStatus(f.client.updatePolicy(created, { enforcementLevel: 'mandatory' }), 422, 'PATCH', `/policies/${created.id}`);
    const statuses = (await f.emulator.requests()).map((r) => r.status);
    assert.deepEqual(statuses, [422, 422, 200, 422]);
  });

  it('401 for a wrong token', async () => {
    const stranger = new ApiClient({ baseUrl: f.emulator.url, token: 'not-the-token', logger: silentLogger() });
    try {
      await rejectsWithStatus(stranger.listPolicies('acme'), 401, 'GET', '/organizations/acme/policies?page[number]=1&page[size]=100');
      await rejectsWithStatus(stranger.getPolicy('pol-x'), 401, 'GET', '/policies/pol-x');
    } finally {
      await stranger.close();
    }
  });
});
