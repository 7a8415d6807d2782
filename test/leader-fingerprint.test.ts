/** What a replica syncs, as the record's fingerprint: the replicas of one deployment agree, another deployment differs. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { syncFingerprint } from '../src/leader/index.js';

const a = { name: 'platform', organization: 'acme' };
const b = { name: 'security', organization: 'acme' };

test('the order of the sources does not change the fingerprint: two replicas of one deployment agree', () => {
  assert.equal(syncFingerprint([a, b]), syncFingerprint([b, a]));
  const many = Array.from({ length: 12 }, (_, i) => ({ name: `source-${i}`, organization: `org-${i % 3}` }));
  assert.equal(syncFingerprint(many), syncFingerprint([...many].reverse()));
  assert.equal(syncFingerprint(many), syncFingerprint([...many.slice(5), ...many.slice(0, 5)]));
});

test('another organization, another source or a name split differently is another deployment', () => {
  const mine = syncFingerprint([a, b]);
  assert.notEqual(syncFingerprint([a, { ...b, organization: 'other' }]), mine);
  assert.notEqual(syncFingerprint([a]), mine);
  assert.notEqual(syncFingerprint([{ name: 'ab', organization: 'c' }]), syncFingerprint([{ name: 'a', organization: 'bc' }]));
  assert.match(mine, /^[0-9a-f]{16}$/);
});
