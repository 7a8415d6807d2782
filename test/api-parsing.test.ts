import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPolicyBody, updateAgentPoolBody, updatePolicyBody } from '../src/api/bodies.js';
import { errorDetail } from '../src/api/json-api.js';
import { queryString } from '../src/api/paginate.js';
import { parseAgent, parseAgentPool, parsePolicy } from '../src/api/resources.js';
import { at } from './helpers/api-documents.js';

describe('lenient reading of what real servers send', () => {
  it('a policy without a policy-sets relationship has none; enforce alone gives the level', () => {
    const policy = parsePolicy({
      id: 'pol-1', type: 'policies',
      attributes: { name: 'old', kind: 'native', enforce: [{ path: 'old.native', mode: 'soft-mandatory' }], 'updated-at': null },
      relationships: { organization: { data: { id: 'acme', type: 'organizations' } } },
      links: { self: '/api/v2/policies/pol-1', upload: '/api/v2/policies/pol-1/upload' },
    });
    assert.deepEqual([policy.policySetIds, policy.policySetCount, policy.enforcementLevel, policy.links.download, policy.organization],
      [[], 0, 'soft-mandatory', null, 'acme']);
    assert.equal(policy.query, null);
  });

  it('enforce is empty until code is uploaded: the level comes from enforcement-level, else the kind default', () => {
    const fresh = { id: 'pol-4', attributes: { name: 'f', kind: 'native', 'enforcement-level': 'advisory', enforce: [] } };
    assert.equal(parsePolicy(fresh).enforcementLevel, 'advisory');
    assert.equal(parsePolicy(fresh, true).enforcementLevel, 'advisory');
    assert.equal(parsePolicy({ id: 'pol-5', attributes: { name: 'f', kind: 'native', enforce: [] } }).enforcementLevel, 'hard-mandatory');
  });

  it('legacy-enforce reads enforce first; a native path that is not <name>.native means hard-mandatory', () => {
    const both = { id: 'pol-6', attributes: { name: 'b', kind: 'opa', 'enforcement-level': 'advisory', enforce: [{ path: 'b.rego', mode: 'mandatory' }] } };
    assert.equal(parsePolicy(both).enforcementLevel, 'advisory');
    assert.equal(parsePolicy(both, true).enforcementLevel, 'mandatory');
    const misnamed = { id: 'pol-7', attributes: { name: 'm', kind: 'native', enforce: [{ path: 'other.native', mode: 'advisory' }] } };
    assert.equal(parsePolicy(misnamed, true).enforcementLevel, 'hard-mandatory');
  });

  it('a query on a native policy is ignored; opa defaults to advisory', () => {
    const opa = parsePolicy({ id: 'pol-2', attributes: { name: 'o', kind: 'opa', query: 'data.x' } });
    assert.deepEqual([opa.kind, opa.query, opa.enforcementLevel], ['opa', 'data.x', 'advisory']);
    const native = parsePolicy({ id: 'pol-3', attributes: { name: 'n', query: 'data.y', 'enforcement-level': 'advisory' } });
    assert.deepEqual([native.kind, native.query], ['native', null]);
  });

  it('an agent that never pinged keeps null last-ping-at and ip-address; a missing or non-string time is null too', () => {
    const fresh = parseAgent({
      id: 'agent-1', type: 'agents',
      attributes: { name: null, status: 'exited', 'ip-address': null, 'last-ping-at': null, 'created-at': '2026-01-01T00:00:00.000Z' },
    });
    assert.deepEqual(fresh, { id: 'agent-1', name: null, status: 'exited', ipAddress: null, lastPingAt: null, createdAt: '2026-01-01T00:00:00.000Z' });
    const odd = parseAgent({ id: 'agent-2', attributes: { status: 'unknown', 'last-ping-at': 1767225600, 'created-at': false } });
    assert.deepEqual([odd.ipAddress, odd.lastPingAt, odd.createdAt], [null, null, null]);
    const pinged = parseAgent({ id: 'agent-3', attributes: { status: 'idle', 'ip-address': '10.0.0.1', 'last-ping-at': '2026-01-02T00:00:00.000Z' } });
    assert.deepEqual([pinged.ipAddress, pinged.lastPingAt, pinged.createdAt], ['10.0.0.1', '2026-01-02T00:00:00.000Z', null]);
  });

  it('a resource without id or name is refused, naming what is missing', () => {
    assert.throws(() => parsePolicy({ attributes: { name: 'x' } }), /has no id/);
    assert.throws(() => parseAgentPool({ id: 'apool-1', attributes: {} }), /apool-1 has no attributes\.name/);
  });

  it('error documents: objects with string or number status, and the older list of strings', () => {
    assert.equal(errorDetail({ errors: [{ status: '422', title: 'invalid attribute', detail: 'Name has already been taken' }] }),
      'invalid attribute: Name has already been taken');
    assert.equal(errorDetail({ errors: [{ status: 429, title: 'Too many requests', detail: "You have exceeded the API's rate limit." }] }),
      "Too many requests: You have exceeded the API's rate limit.");
    assert.equal(errorDetail({ errors: ['Name is invalid', 'Kind is invalid'] }), 'Name is invalid; Kind is invalid');
    assert.equal(errorDetail({ errors: [{ status: '404', title: 'not found' }] }), 'not found');
    assert.equal(errorDetail('<html>'), null);
  });
});

describe('exact in what it sends', () => {
  it('create sends enforcement-level and never enforce beside it, query only for opa, policy sets always', () => {
    assert.deepEqual(createPolicyBody({ name: 'n', kind: 'native', description: null, enforcementLevel: 'advisory', query: 'data.ignored', policySetIds: [] }, { legacy: false, nativeKind: 'native' }), {
      data: {
        type: 'policies',
        attributes: { name: 'n', description: null, kind: 'native', 'enforcement-level': 'advisory' },
        relationships: { 'policy-sets': { data: [] } },
      },
    });
    const opa = createPolicyBody({ name: 'o', kind: 'opa', description: 'd', enforcementLevel: 'mandatory', query: 'data.o.deny', policySetIds: ['polset-1'] }, { legacy: false, nativeKind: 'native' });
    assert.deepEqual(opa, {
      data: {
        type: 'policies',
        attributes: { name: 'o', description: 'd', kind: 'opa', 'enforcement-level': 'mandatory', query: 'data.o.deny' },
        relationships: { 'policy-sets': { data: [{ id: 'polset-1', type: 'policy-sets' }] } },
      },
    });
  });

  it('legacy-enforce: create sends the enforce array alone, with the path of the name and kind', () => {
    const native = createPolicyBody({ name: 'n', kind: 'native', description: null, enforcementLevel: 'soft-mandatory', query: null, policySetIds: [] }, { legacy: true, nativeKind: 'native' });
    assert.deepEqual(at(native, 'data.attributes'), { name: 'n', description: null, kind: 'native', enforce: [{ path: 'n.native', mode: 'soft-mandatory' }] });
    const opa = createPolicyBody({ name: 'o', kind: 'opa', description: null, enforcementLevel: 'mandatory', query: 'data.o.deny', policySetIds: [] }, { legacy: true, nativeKind: 'native' });
    assert.deepEqual(at(opa, 'data.attributes'), { name: 'o', description: null, kind: 'opa', enforce: [{ path: 'o.rego', mode: 'mandatory' }], query: 'data.o.deny' });
  });

  it('update sends only what changes, the level in one spelling', () => {
    const ref = { id: 'pol-1', name: 'n', kind: 'native' } as const;
    assert.deepEqual(updatePolicyBody(ref, { enforcementLevel: 'advisory' }, { legacy: false, nativeKind: 'native' }), { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } });
    assert.deepEqual(updatePolicyBody(ref, { description: null }, { legacy: false, nativeKind: 'native' }), { data: { type: 'policies', attributes: { description: null } } });
    assert.deepEqual(updatePolicyBody(ref, { enforcementLevel: 'advisory' }, { legacy: true, nativeKind: 'native' }),
      { data: { type: 'policies', attributes: { enforce: [{ path: 'n.native', mode: 'advisory' }] } } });
  });

  it('a pool update always carries the name and organization-scoped', () => {
    assert.deepEqual(updateAgentPoolBody({ name: 'p', organizationScoped: false }),
      { data: { type: 'agent-pools', attributes: { name: 'p', 'organization-scoped': false } } });
    assert.deepEqual(updateAgentPoolBody({ name: 'p', organizationScoped: true, allowedWorkspaceIds: [] }), {
      data: { type: 'agent-pools', attributes: { name: 'p', 'organization-scoped': true }, relationships: { 'allowed-workspaces': { data: [] } } },
    });
  });

  it('query brackets are percent-encoded', () => {
    assert.equal(queryString([['filter[allowed_workspaces][name]', 'a b'], ['page[size]', '100']]),
      '?filter%5Ballowed_workspaces%5D%5Bname%5D=a%20b&page%5Bsize%5D=100');
  });
});
