import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createPathFilter, isDeclaredPath } from '../src/declared/index.js';

function isIgnored(relPath: string, syncignore: string | null = null, isDirectory = false): boolean {
  return createPathFilter(syncignore).isIgnored(relPath, isDirectory);
}

describe('the path filter shared with the file watcher', () => {
  it('isIgnored applies the built-in rules and .syncignore', () => {
    assert.equal(isIgnored('policies/aws/s3.native'), false);
    assert.equal(isIgnored('policies/aws/test/s3.native'), true);
    assert.equal(isIgnored('policies/aws/mocks', null, true), true);
    assert.equal(isIgnored('policies/aws/mocks.native'), false, 'a file named like a test folder is still a policy');
    assert.equal(isIgnored('policies/opa/s3_test.rego'), true);
    assert.equal(isIgnored('policies/.hidden/s3.native'), true);
    assert.equal(isIgnored('policies/aws/s3.native', 'policies/aws/\n'), true);
    assert.equal(isIgnored('policies/aws', 'policies/aws/\n', true), true);
    assert.equal(isIgnored('policies/gcp/s3.native', 'policies/aws/\n'), false);
  });

  it('isDeclaredPath tells which changed paths can change the declared state', () => {
    const filter = createPathFilter('drafts/\n');
    assert.equal(isDeclaredPath('.syncignore', filter), true);
    assert.equal(isDeclaredPath('policies/a/b.rego', filter), true);
    assert.equal(isDeclaredPath('policies/a/b.yaml', filter), true);
    assert.equal(isDeclaredPath('agent-pools/main.yaml', filter), true);
    assert.equal(isDeclaredPath('agent-pools/sub/main.yaml', filter), false);
    assert.equal(isDeclaredPath('policies/README.md', filter), false);
    assert.equal(isDeclaredPath('lib/x.rego', filter), false);
    assert.equal(isDeclaredPath('policies/drafts/x.native', filter), false, 'an unanchored drafts/ matches a folder at any depth');
    assert.equal(isDeclaredPath('policies/x/drafts/y.native', createPathFilter('/policies/x/drafts\n')), false);
    assert.equal(isDeclaredPath('policies/mocks/x.native', filter), false);
  });
});
