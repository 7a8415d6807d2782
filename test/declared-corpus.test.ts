import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readDeclared, type DeclaredPolicy } from '../src/declared/index.js';
import { CORPUS } from './helpers/declared-tree.js';

function find(policies: readonly DeclaredPolicy[], name: string): DeclaredPolicy {
  const policy = policies.find((candidate) => candidate.name === name);
  assert.ok(policy, `policy ${name} not read`);
  return policy;
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

describe('the real-world corpora read cleanly', () => {
  it('fsbp-aws: 281 native policies, each with its sidecar, sorted by name', async () => {
    const root = path.join(CORPUS, 'fsbp-aws');
    const { policies, pools } = await readDeclared(root);
    assert.equal(policies.length, 281);
    assert.deepEqual(countBy(policies, (p) => p.kind), { native: 281 });
    assert.ok(policies.every((p) => p.settingsFile !== null && p.query === null && p.policySets === null));
    assert.deepEqual(pools, []);
    const names = policies.map((p) => p.name);
    assert.deepEqual(names, [...names].sort());
    const acm = find(policies, 'acm-rsa-certificate-key-length-atleast-2048');
    assert.equal(acm.file, 'policies/acm/acm-rsa-certificate-key-length-atleast-2048.native');
    assert.equal(acm.settingsFile, 'policies/acm/acm-rsa-certificate-key-length-atleast-2048.yaml');
    assert.equal(acm.absolutePath, path.join(root, acm.file));
    assert.equal(acm.enforcementLevel, 'advisory');
    assert.equal(
      acm.description,
      'This control checks whether RSA certificates managed by AWS Certificate Manager use a key length of at least 2,048 bits. The control fails if the key length is smaller than 2,048 bits.',
    );
    assert.equal(acm.code, await readFile(acm.absolutePath, 'utf8'));
    assert.ok(policies.some((p) => p.description?.includes('`cidr_block`')), 'Markdown backticks survive');
  });

  it('sentinel-examples: 78 native policies, 9 on defaults, nothing from test/ or mocks/', async () => {
    const { policies } = await readDeclared(path.join(CORPUS, 'sentinel-examples'));
    assert.equal(policies.length, 78);
    assert.deepEqual(countBy(policies, (p) => p.kind), { native: 78 });
    const onDefaults = policies.filter((p) => p.settingsFile === null);
    assert.equal(onDefaults.length, 9);
    for (const p of onDefaults) {
      assert.deepEqual([p.description, p.enforcementLevel, p.query, p.policySets], [null, 'advisory', null, null], p.name);
    }
    const fromTestFolders = policies.filter((p) => /(^|\/)(test|tests|testdata|mocks)\//.test(p.file));
    assert.deepEqual(fromTestFolders, []);
    assert.ok(policies.every((p) => p.file.startsWith('policies/')), 'modules/ is not read');
    const s3 = find(policies, 'enforce_s3_encryption');
    assert.equal(s3.settingsFile, null);
    assert.equal(s3.code, await readFile(s3.absolutePath, 'utf8'));
    assert.ok(s3.code.startsWith('# This policy uses the Sentinel tfplan/v2'));
    assert.ok(find(policies, 'azure-enforce-mandatory-tags'));
  });

  it('avm-rego: 128 opa policies, each with a query', async () => {
    const { policies } = await readDeclared(path.join(CORPUS, 'avm-rego'));
    assert.equal(policies.length, 128);
    assert.deepEqual(countBy(policies, (p) => p.kind), { opa: 128 });
    assert.ok(policies.every((p) => p.query !== null && p.query.startsWith('data.')));
    const acr = find(policies, 'ACRAdminAccountDisabled');
    assert.equal(acr.file, 'policies/avmsec/ACRAdminAccountDisabled.rego');
    assert.equal(acr.query, 'data.avmsec.deny_AVM_SEC_137');
    assert.equal(acr.enforcementLevel, 'advisory');
    assert.equal(acr.description, null);
    assert.equal(acr.code, await readFile(acr.absolutePath, 'utf8'));
    assert.ok(acr.code.startsWith('package avmsec\n'));
  });
});
