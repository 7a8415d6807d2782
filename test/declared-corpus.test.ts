import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codeDigest } from '../src/code-content.js';
import { readDeclared, readVerifiedCode, type DeclaredPolicy } from '../src/declared/index.js';
import { CORPUS } from './helpers/repos.js';

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

/** Every file under `root`, as paths relative to it with `/`. */
async function filesUnder(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

describe('the real-world corpora read cleanly', () => {
  it('sentinel-examples: 31 native policies, 7 on defaults, nothing from test/, mocks/ or modules/', async () => {
    const root = path.join(CORPUS, 'sentinel-examples');
    const onDisk = await filesUnder(root);
    const notPolicies = onDisk.filter((f) => f.endsWith('.native') && /(^|\/)(test|mocks|modules)\//.test(f));
    assert.ok(notPolicies.length >= 80, `the corpus holds the mocks the reader must skip (${notPolicies.length})`);

    const { policies, pools } = await readDeclared(root);
    assert.equal(policies.length, 31);
    assert.deepEqual(countBy(policies, (p) => p.kind), { native: 31 });
    assert.deepEqual(pools, []);
    const names = policies.map((p) => p.name);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual(policies.filter((p) => /(^|\/)(test|tests|testdata|mocks)\//.test(p.file)), []);
    assert.ok(policies.every((p) => p.file.startsWith('policies/')), 'modules/ is not read');
    assert.deepEqual(
      policies.filter((p) => p.settingsFile === null).map((p) => p.name),
      ['asteroids', 'enforce_s3_encryption', 'prohibited-local-exec-commands', 'require-free-sec-center-subscription-pricing-for-vms',
        'restrict-terraform-versions', 'restrict_s3_acl', 'use-recent-versions-from-pmr'],
    );
    for (const p of policies.filter((x) => x.settingsFile === null)) {
      assert.deepEqual([p.description, p.enforcementLevel, p.query, p.policySets], [null, 'advisory', null, null], p.name);
    }

    const s3 = find(policies, 'enforce_s3_encryption');
    assert.equal(s3.file, 'policies/aws/enforce_s3_encryption.native');
    assert.equal(s3.codeSource.path, path.join(root, s3.file));
    assert.equal(s3.code, null, 'the text is not kept');
    const s3Code = await readFile(s3.codeSource.path, 'utf8');
    assert.equal(s3.codeDigest, codeDigest(s3Code));
    assert.equal((await readVerifiedCode(s3)).toString('utf8'), s3Code);
    assert.ok(s3Code.startsWith('# This policy uses the Sentinel tfplan/v2'));
    assert.equal(find(policies, 'check-external-http-api').file, 'policies/cloud-agnostic/http-examples/check-external-http-api.native');
    assert.equal(find(policies, 'azure-enforce-mandatory-tags').file, 'policies/azure/azure-enforce-mandatory-tags.native');
  });

  it('sentinel-examples: Markdown descriptions come through byte for byte, whatever the YAML quoting', async () => {
    const { policies } = await readDeclared(path.join(CORPUS, 'sentinel-examples'));
    const tags = find(policies, 'enforce-mandatory-tags');
    assert.equal(tags.settingsFile, 'policies/aws/enforce-mandatory-tags.yaml');
    assert.equal(tags.enforcementLevel, 'advisory');
    assert.equal(tags.description, 'Uses the Sentinel `tfplan/v2` import to require that specified AWS resources have all mandatory tags.');
    assert.equal(
      find(policies, 'restrict-db-instance-engines').description,
      'Requires that all RDS instances have engines from an allowed list; include "null" to allow missing or computed values.',
    );
    assert.match(find(policies, 'restrict-availability-zones').description ?? '', /^Restricts the availability zones used by EC2 instances: an easier way .* the `tfconfig\/v2` import\.$/);
    const literal = find(policies, 'allowed-providers').description ?? '';
    assert.ok(literal.startsWith('Restricts providers to those in an allowed list.\n\nIt used to only use the `providers` collection'), literal);
    assert.ok(literal.endsWith('the `resources` collection.\n'), 'a literal block keeps its line breaks and final newline');
    const folded = find(policies, 'restrict-remote-state').description ?? '';
    assert.ok(folded.includes('`terraform_remote_state` data source.\n\n**Important caveat:** this policy runs *after* `terraform plan`'), folded);
    assert.ok(!folded.endsWith('\n'), 'a folded block with `-` has no final newline');
    assert.equal(policies.filter((p) => p.description !== null).length, 5);
  });

  it('avm-rego: 29 opa policies, each with a query, from folders six deep; nothing from lib/', async () => {
    const root = path.join(CORPUS, 'avm-rego');
    const libRego = (await filesUnder(root)).filter((f) => f.startsWith('lib/') && f.endsWith('.rego'));
    assert.ok(libRego.includes('lib/common/common.utils_test.rego') && libRego.length >= 4, 'the corpus holds Rego libraries outside policies/');

    const { policies } = await readDeclared(root);
    assert.equal(policies.length, 29);
    assert.deepEqual(countBy(policies, (p) => p.kind), { opa: 29 });
    assert.ok(policies.every((p) => p.file.startsWith('policies/')), 'lib/ is not read');
    assert.ok(policies.every((p) => p.query !== null && p.query.startsWith('data.')));
    assert.ok(policies.every((p) => p.settingsFile !== null && p.description === null && p.enforcementLevel === 'advisory'));

    const acr = find(policies, 'ACRAdminAccountDisabled');
    assert.equal(acr.file, 'policies/avmsec/ACRAdminAccountDisabled.rego');
    assert.equal(acr.query, 'data.avmsec.deny_AVM_SEC_137');
    assert.equal(acr.description, null);
    const acrCode = await readFile(acr.codeSource.path, 'utf8');
    assert.equal(acr.codeDigest, codeDigest(acrCode));
    assert.ok(acrCode.startsWith('package avmsec\n'));
    assert.ok(find(policies, 'Cosmos_NetworkRulesExist-azapi'));

    const deep = find(policies, 'microsoft_container_service_managedClusters_sku_standard_or_premium');
    assert.equal(deep.file, 'policies/Azure-Proactive-Resiliency-Library-v2/azapi/containerservice/aks/microsoft_container_service_managedClusters_sku_standard_or_premium.rego');
    assert.equal(deep.query, 'data.Azure_Proactive_Resiliency_Library_v2.deny_aks_sku_standard_or_premium');
  });
});
