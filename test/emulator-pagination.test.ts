import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { policyBody, TestEmulator, orgSeed } from './helpers/emulator.js';

describe('emulator pagination', () => {
  let t: TestEmulator;
  let base: string;
  const link = (number: number, size: number, extra = ''): string => `${base}?page%5Bnumber%5D=${number}&page%5Bsize%5D=${size}${extra}`;

  before(async () => {
    t = await TestEmulator.start(orgSeed());
    base = `${t.emu.url}/organizations/org/policies`;
    for (let i = 0; i < 45; i += 1) {
      const name = `policy-${String(i).padStart(2, '0')}`;
      const res = await t.call('POST', '/organizations/org/policies', { body: policyBody(name, { 'enforcement-level': 'advisory' }) });
      assert.equal(res.status, 200);
    }
  });
  after(() => t.close());

  it('pages 45 policies by the default size of 20 with exact links and meta', async () => {
    const first = await t.call('GET', '/organizations/org/policies');
    assert.equal(first.json.data.length, 20);
    assert.equal(first.json.data[0].attributes.name, 'policy-00');
    assert.deepEqual(first.json.links, { self: link(1, 20), first: link(1, 20), prev: null, next: link(2, 20), last: link(3, 20) });
    assert.deepEqual(first.json.meta.pagination, { 'current-page': 1, 'page-size': 20, 'prev-page': null, 'next-page': 2, 'total-pages': 3, 'total-count': 45 });

    const second = await t.call('GET', '/organizations/org/policies?page[number]=2&page[size]=20');
    assert.equal(second.json.data[0].attributes.name, 'policy-20');
    assert.deepEqual(second.json.links, { self: link(2, 20), first: link(1, 20), prev: link(1, 20), next: link(3, 20), last: link(3, 20) });
    assert.deepEqual(second.json.meta.pagination, { 'current-page': 2, 'page-size': 20, 'prev-page': 1, 'next-page': 3, 'total-pages': 3, 'total-count': 45 });

    const third = await t.call('GET', '/organizations/org/policies?page%5Bnumber%5D=3&page%5Bsize%5D=20');
    assert.equal(third.json.data.length, 5);
    assert.equal(third.json.data[4].attributes.name, 'policy-44');
    assert.deepEqual(third.json.links, { self: link(3, 20), first: link(1, 20), prev: link(2, 20), next: null, last: link(3, 20) });
    assert.deepEqual(third.json.meta.pagination, { 'current-page': 3, 'page-size': 20, 'prev-page': 2, 'next-page': null, 'total-pages': 3, 'total-count': 45 });
  });

  it('answers page[size]=100 whole, and refuses 101 or more with 422 naming the parameter (NOTES: "may be refused")', async () => {
    const res = await t.call('GET', '/organizations/org/policies?page%5Bsize%5D=100');
    assert.equal(res.json.data.length, 45);
    assert.deepEqual(res.json.links, { self: link(1, 100), first: link(1, 100), prev: null, next: null, last: link(1, 100) });
    assert.deepEqual(res.json.meta.pagination, { 'current-page': 1, 'page-size': 100, 'prev-page': null, 'next-page': null, 'total-pages': 1, 'total-count': 45 });
    for (const size of [101, 500]) {
      const refused = await t.call('GET', `/organizations/org/policies?page%5Bsize%5D=${size}`);
      assert.equal(refused.status, 422);
      assert.deepEqual(refused.json.errors, [{ status: '422', title: 'invalid parameter', detail: 'page[size] must be at most 100', source: { parameter: 'page[size]' } }]);
    }
  });

  it('keeps other query parameters in the links, brackets encoded', async () => {
    const res = await t.call('GET', '/organizations/org/policies?page[size]=10&search[name]=policy-1');
    assert.equal(res.json.meta.pagination['total-count'], 10);
    assert.equal(res.json.links.next, null);
    assert.equal(res.json.links.self, link(1, 10, '&search%5Bname%5D=policy-1'));
  });

  it('follows links.next to the end and sees every policy once', async () => {
    const names: string[] = [];
    let next: string | null = `${base}?page%5Bsize%5D=7`;
    while (next !== null) {
      const res = await t.call('GET', next);
      names.push(...res.json.data.map((p: { attributes: { name: string } }) => p.attributes.name));
      next = res.json.links.next;
    }
    assert.equal(names.length, 45);
    assert.equal(new Set(names).size, 45);
  });
});
