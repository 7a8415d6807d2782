import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPolicyBody, updatePolicyBody } from '../src/api/bodies.js';
import { errorDetail } from '../src/api/json-api.js';
import { queryString } from '../src/api/paginate.js';
import { parseAgentPool, parsePolicy } from '../src/api/resources.js';

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

  it('a query on a native policy is ignored; opa defaults to advisory', () => {
    const opa = parsePolicy({ id: 'pol-2', attributes: { name: 'o', kind: 'opa', query: 'data.x' } });
    assert.deepEqual([opa.kind, opa.query, opa.enforcementLevel], ['opa', 'data.x', 'advisory']);
    const native = parsePolicy({ id: 'pol-3', attributes: { name: 'n', query: 'data.y', 'enforcement-level': 'advisory' } });
    assert.deepEqual([native.kind, native.query], ['native', null]);
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
  it('create sends enforcement-level and a consistent enforce, query only for opa, policy sets always', () => {
    assert.deepEqual(createPolicyBody({ name: 'n', kind: 'native', description: null, enforcementLevel: 'advisory', query: 'data.ignored', policySetIds: [] }), {
      data: {
        type: 'policies',
        attributes: { name: 'n', description: null, kind: 'native', 'enforcement-level': 'advisory', enforce: [{ path: 'n.native', mode: 'advisory' }] },
        relationships: { 'policy-sets': { data: [] } },
      },
    });
    const opa = createPolicyBody({ name: 'o', kind: 'opa', description: 'd', enforcementLevel: 'mandatory', query: 'data.o.deny', policySetIds: ['polset-1'] });
    assert.deepEqual(opa, {
      data: {
        type: 'policies',
        attributes: { name: 'o', description: 'd', kind: 'opa', 'enforcement-level': 'mandatory', enforce: [{ path: 'o.rego', mode: 'mandatory' }], query: 'data.o.deny' },
        relationships: { 'policy-sets': { data: [{ id: 'polset-1', type: 'policy-sets' }] } },
      },
    });
  });

  it('update sends only what changes', () => {
    assert.deepEqual(updatePolicyBody({ enforcementLevel: 'advisory' }), { data: { type: 'policies', attributes: { 'enforcement-level': 'advisory' } } });
    assert.deepEqual(updatePolicyBody({ description: null }), { data: { type: 'policies', attributes: { description: null } } });
  });

  it('query brackets are percent-encoded', () => {
    assert.equal(queryString([['filter[allowed_workspaces][name]', 'a b'], ['page[size]', '100']]),
      '?filter%5Ballowed_workspaces%5D%5Bname%5D=a%20b&page%5Bsize%5D=100');
  });
});
