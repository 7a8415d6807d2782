import assert from 'node:assert/strict';
import { cp, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { scanCodeText, unresolvedImports, type FileImports } from '../src/declared/imports.js';
import { runCli, spawnCli } from './helpers/cli.js';
import { REPO_ROOT } from './helpers/repo-root.js';
import { tempTree, writeTree } from './helpers/temp-tree.js';

/** Three policies of the avm-rego library calling `data.utils.resource(...)`, with `lib/common.utils.rego` (`package utils`) at the root, as the library ships it. */
const FIXTURE = path.join(REPO_ROOT, 'test/fixtures/rego-library');
const POLICIES = [
  'policies/compute/azurerm_linux_virtual_machine_zone.rego',
  'policies/compute/azurerm_managed_disk_storage_account_type.rego',
  'policies/storage/azurerm_storage_account_account_replication_type.rego',
];

async function fixtureCopy(t: Parameters<typeof tempTree>[0]): Promise<string> {
  const dir = await tempTree(t, {}, 'pps-rego-library-');
  await cp(FIXTURE, dir, { recursive: true });
  return dir;
}

function referenceWarnings(lines: readonly string[]): string[] {
  return lines.filter((line) => line.includes('refers to data.'));
}

describe('Rego references to packages no uploaded file declares', () => {
  it('a library beside the policies, never uploaded: --validate gives one warning for all its callers, naming the way out', async (t) => {
    const dir = await fixtureCopy(t);
    const run = await spawnCli(['--validate', '--source-dir', dir]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /valid \(3 policies/);
    const warnings = referenceWarnings(run.stdout.split('\n'));
    assert.equal(warnings.length, 1, run.stdout);
    const want = `  warning: refers to data.utils in 3 policies (${POLICIES[0]}:14, ${POLICIES[1]}:14, ${POLICIES[2]}:10): ` +
      'a package no declared .rego file declares: a policy is uploaded alone (a library beside the policies, such as lib/, never is), ' +
      'so the reference fails when it runs; an OPA versioned policy set, a folder holding policies.hcl with the library files in it too, ' +
      'uploads them together (--strict-imports makes this an error)';
    assert.equal(warnings[0], want);
  });

  it('--strict-imports makes each caller an error naming its file and line', async (t) => {
    const dir = await fixtureCopy(t);
    const run = await runCli(['--validate', '--source-dir', dir, '--strict-imports']);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /3 problems/);
    for (const file of POLICIES) assert.match(run.stdout, new RegExp(`${file.replaceAll('.', '\\.')}:\\d+: refers to data\\.utils, a package`));
  });

  it('none once an uploaded policy declares the package: a rule below it, a package below it and the policy\'s own package all resolve', async (t) => {
    const dir = await fixtureCopy(t);
    const library = await readFile(path.join(FIXTURE, 'lib/common.utils.rego'), 'utf8');
    await writeTree(dir, {
      'policies/utils.rego': library,
      'policies/utils.yaml': 'query: data.utils.resource\n',
      'policies/lib/terraform_tags.rego': 'package terraform.lib.tags\n\nx := 1\n',
      'policies/lib/terraform_tags.yaml': 'query: data.terraform.lib.tags.x\n',
      'policies/self.rego': 'package self.check\n\ndeny contains "x" if { data.self.check.ok; data.terraform.lib.tags.x == 1; data.terraform.lib }\n\nok := true\n',
      'policies/self.yaml': 'query: data.self.check.deny\n',
    });
    const run = await runCli(['--validate', '--source-dir', dir, '--strict-imports']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /valid \(6 policies/);
    assert.deepEqual(referenceWarnings(run.stdout.split('\n')), []);
  });

  it('none for a reference in a comment, a string or a raw string over several lines; a reference after them still counts', async (t) => {
    const code = [
      'package quiet',
      '',
      '# resource := data.utils.resource(input, "x")',
      'deny contains msg if {',
      '    msg := sprintf("see data.utils.resource \\" and data.more.x", [input.a]) # data.after.comment',
      '    input.metadata.owner == "team"',
      '    doc := `first line',
      '    data.inside.raw.string',
      '    last line`',
      '}',
      '',
      'late contains msg if { msg := "a#b"; data.shared.helpers.x }',
      '',
    ].join('\n');
    const dir = await tempTree(t, { 'policies/quiet.rego': code, 'policies/quiet.yaml': 'query: data.quiet.deny\n' });
    const declared = await readDeclared(dir);
    assert.deepEqual(referenceWarnings(declared.warnings ?? []).map((w) => w.slice(0, w.indexOf(','))), ['policies/quiet.rego:12: refers to data.shared']);
  });

  it('a set supplies what is uploaded together: the packages of its library files resolve, and the reason names the set', () => {
    const caller: FileImports = { file: 'policy-sets/avm/check.rego', kind: 'opa', ...scanCodeText('opa', 'package avm\n\nx if { data.utils.resource(input, "t") }\n') };
    assert.deepEqual(caller.references, [{ target: 'utils.resource', line: 3 }]);
    const alone = unresolvedImports([caller], { setFolder: 'policy-sets/avm' });
    assert.equal(alone.length, 1);
    assert.match(alone[0]!.reason, /no \.rego file of the policy set policy-sets\/avm declares/);
    assert.deepEqual(unresolvedImports([caller], { setFolder: 'policy-sets/avm', packages: ['utils'] }), []);
  });
});
