import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeDigest } from '../src/live/code-cache.js';
import { normalizeLineEnds } from '../src/line-ends.js';
import { sameCode } from '../src/plan/policies.js';
import { markerSource, stripMarker, withMarker } from '../src/plan/marker.js';
import { declaredPolicy, livePolicy } from './helpers/plan-fixtures.js';

test('withMarker appends an HTML comment naming the source', () => {
  assert.equal(withMarker('Requires tags.', 'main'), 'Requires tags.\n\n<!-- managed-by: policy-pool-sync source=main -->');
  assert.equal(withMarker(null, 'main'), '<!-- managed-by: policy-pool-sync source=main -->');
});

test('stripMarker gives back exactly what was declared', () => {
  for (const text of [null, '', 'one line', 'two\nlines\n', 'ends with blank lines\n\n', '| a | b |\n|---|---|', 'crlf\r\nline']) {
    assert.equal(stripMarker(withMarker(text, 'team-a')), text, JSON.stringify(text));
  }
});

test('stripMarker leaves descriptions without a marker alone', () => {
  assert.equal(stripMarker(null), null);
  assert.equal(stripMarker('plain'), 'plain');
  assert.equal(stripMarker('<!-- a comment of its own -->'), '<!-- a comment of its own -->');
  assert.equal(stripMarker('mentions <!-- managed-by: policy-pool-sync source=x --> mid-text'), 'mentions <!-- managed-by: policy-pool-sync source=x --> mid-text');
});

test('stripMarker tolerates CRLF and trailing whitespace added by the service', () => {
  assert.equal(stripMarker('text\r\n\r\n<!-- managed-by: policy-pool-sync source=main -->\r\n'), 'text');
});

test('markerSource names the owning source, or null', () => {
  assert.equal(markerSource(withMarker('x', 'team-a')), 'team-a');
  assert.equal(markerSource(withMarker(null, 'prod_eu')), 'prod_eu');
  assert.equal(markerSource('no marker'), null);
  assert.equal(markerSource(null), null);
});

test('code compares by digest, with line ends normalised and a byte order mark dropped; never-uploaded code differs', () => {
  const same = (declared: string, live: string | null) => sameCode(declaredPolicy({ name: 'p', code: declared }), livePolicy({ name: 'p', code: live }));
  assert.equal(normalizeLineEnds('a\r\nb\rc\n'), 'a\nb\nc\n');
  assert.ok(same('a\nb\n', 'a\r\nb\r\n'));
  assert.ok(same('\uFEFFa\nb\n', 'a\nb\n'), 'downloads come back decoded without the byte order mark');
  assert.ok(!same('a\nb\n', 'a\nb'));
  assert.ok(!same('', null));
  assert.ok(!same('\uFEFF\uFEFFa', 'a'), 'only one leading mark is dropped');
  assert.equal(codeDigest('a\r\nb'), codeDigest('a\nb'));
  assert.notEqual(codeDigest('a\nb'), codeDigest('a\nc'));
});
