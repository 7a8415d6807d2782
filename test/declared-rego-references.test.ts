/** A Rego policy that refers to a package no uploaded file declares is warned about like a missing module, with the way out. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { useTempTrees } from './helpers/temp-tree.js';

const POLICY = 'package terraform.policies.zones\n\nimport rego.v1\n\n# data.ignored.in_a_comment is no reference\ndeny contains msg if {\n  some r in data.utils.resource(input, "azapi_resource")\n  msg := "x"\n}\n';

describe('Rego references to packages', () => {
  const repo = useTempTrees('pps-rego-');

  it('a reference to a package nothing declares is a warning naming the file, line and the way out', async () => {
    const dir = await repo({ 'policies/zones.rego': POLICY, 'policies/zones.yaml': 'query: data.terraform.policies.zones.deny\n' });
    const declared = await readDeclared(dir);
    assert.deepEqual(declared.warnings?.filter((w) => w.includes('refers to')), [
      'policies/zones.rego:7: refers to data.utils.resource, a package no declared .rego file declares: a policy is uploaded alone, so the reference fails when it runs. ' +
        'Keep the library with its policies in an OPA versioned policy set: a folder with a policies.hcl that holds the lib/ too (--strict-imports makes this an error)',
    ]);
    await assert.rejects(readDeclared(dir, { strictImports: true }), /policies\/zones\.rego:7: refers to data\.utils\.resource/);
  });

  it('no warning when the package is declared, or when the library and its policies form an OPA versioned set', async () => {
    const withLib = await repo({
      'policies/zones.rego': POLICY, 'policies/zones.yaml': 'query: data.terraform.policies.zones.deny\n',
      'policies/lib/utils.rego': 'package utils\n\nresource(i, t) := []\n', 'policies/lib/utils.yaml': 'query: data.utils.resource\n',
    });
    assert.deepEqual((await readDeclared(withLib)).warnings?.filter((w) => w.includes('refers to')), []);
    const asSet = await repo({
      'policy-sets/avm/policies.hcl': 'policy "zones" {\n  query = "data.terraform.policies.zones.deny"\n  enforcement_level = "advisory"\n}\n',
      'policy-sets/avm/zones.rego': POLICY,
      'policy-sets/avm/lib/utils.rego': 'package utils\n\nresource(i, t) := []\n',
    });
    const declared = await readDeclared(asSet);
    assert.deepEqual(declared.warnings, []);
    assert.equal(declared.policySets?.[0]?.kind, 'opa');
  });
});
