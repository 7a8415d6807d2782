import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import { ValidationError } from '../src/errors.js';
import { runCli } from './helpers/cli.js';
import { tempTree } from './helpers/temp-tree.js';

const MODULE_USER = [
  'import "tfplan/v2" as tfplan',
  'import "tfplan-functions" as plan',
  'import "strings"',
  '',
  'main = rule { true }',
  '',
].join('\r\n');

const REGO_USER = [
  'package terraform.checks',
  '',
  'import rego.v1',
  'import data.terraform.lib',
  'import data.terraform.helpers.tags',
  'import data.shared.missing',
  '',
  'deny contains msg if { false; msg := "x" }',
  '',
].join('\n');

const REGO_LIB = 'package terraform.lib\n\nx := 1\n';
const REGO_HELPERS = 'package terraform.helpers\n\ntags := 1\n';

describe('.sentinel files', () => {
  it('declare native policies like .native, mocks under test/ and mocks/ staying ignored', async (t) => {
    const dir = await tempTree(t, {
      'policies/a.sentinel': 'main = rule { true }\n',
      'policies/a.yaml': 'enforcement-level: soft-mandatory\n',
      'policies/b.native': 'main = rule { true }\n',
      'policies/test/a/pass.sentinel': 'main = rule { true }\n',
      'policies/mocks/mock-tfplan.sentinel': 'x = 1\n',
    });
    const declared = await readDeclared(dir);
    assert.deepEqual(declared.policies.map((p) => [p.name, p.kind, p.file, p.enforcementLevel]), [
      ['a', 'native', 'policies/a.sentinel', 'soft-mandatory'],
      ['b', 'native', 'policies/b.native', 'advisory'],
    ]);
  });

  it('x.native and x.sentinel in one source is the duplicate-name error', async (t) => {
    const dir = await tempTree(t, { 'policies/x.native': 'main = rule { true }\n', 'policies/other/x.sentinel': 'main = rule { true }\n' });
    const error = await readDeclared(dir).then(() => null, (e: unknown) => e);
    assert.ok(error instanceof ValidationError);
    assert.match(error.message, /policy name "x" is used by 2 files \(policies\/other\/x\.sentinel, policies\/x\.native\)|policy name "x" is used by 2 files/);
  });
});

describe('imports that fail on the service', () => {
  const tree = {
    'policies/uses-module.sentinel': MODULE_USER,
    'policies/checks.rego': REGO_USER,
    'policies/checks.yaml': 'query: data.terraform.checks.deny\n',
    'policies/lib.rego': REGO_LIB,
    'policies/lib.yaml': 'query: data.terraform.lib.x\n',
    'policies/helpers.rego': REGO_HELPERS,
    'policies/helpers.yaml': 'query: data.terraform.helpers.tags\n',
  };

  it('are warnings naming the file, the line and the import', async (t) => {
    const declared = await readDeclared(await tempTree(t, tree));
    const imports = (declared.warnings ?? []).filter((w) => w.includes('import'));
    assert.equal(imports.length, 2, imports.join('\n'));
    assert.match(imports[0]!, /^policies\/checks\.rego:6: imports data\.shared\.missing, a package no declared \.rego file declares/);
    assert.match(imports[1]!, /^policies\/uses-module\.sentinel:2: imports "tfplan-functions", neither a standard nor a plan import/);
  });

  it('are grouped by what is imported: one line per module, naming how many policies and the first files in order', async (t) => {
    const files: Record<string, string> = {};
    for (let i = 1; i <= 12; i += 1) files[`policies/p${i}.sentinel`] = 'import "report"\nimport "tfresources"\nmain = rule { true }\n';
    files['policies/lone.sentinel'] = '\n\nimport "helpers"\nmain = rule { true }\n';
    const declared = await readDeclared(await tempTree(t, files));
    const imports = (declared.warnings ?? []).filter((w) => w.includes('import'));
    assert.deepEqual(imports.map((w) => w.replace(/\): neither.*$/, ')').replace(/, neither.*$/, '')), [
      'policies/lone.sentinel:3: imports "helpers"',
      'imports "report" in 12 policies (policies/p1.sentinel:1, policies/p10.sentinel:1, policies/p11.sentinel:1, and 9 more)',
      'imports "tfresources" in 12 policies (policies/p1.sentinel:2, policies/p10.sentinel:2, policies/p11.sentinel:2, and 9 more)',
    ]);
    assert.ok(imports.every((w) => w.endsWith('(--strict-imports makes this an error)')), imports.join('\n'));
    const strict = await readDeclared(await tempTree(t, files), { strictImports: true }).then(() => null, (e: unknown) => e);
    assert.ok(strict instanceof ValidationError);
    assert.equal(strict.problems.length, 25, 'each import is its own problem once they are errors');
  });

  it('sort a file\'s lines as numbers', async (t) => {
    const code = Array.from({ length: 10 }, () => '').concat('import "b"', 'main = rule { true }').join('\n');
    const declared = await readDeclared(await tempTree(t, { 'policies/x.sentinel': `import "a"\n${code}` }));
    const imports = (declared.warnings ?? []).filter((w) => w.includes('import'));
    assert.deepEqual(imports.map((w) => w.slice(0, w.indexOf(','))), ['policies/x.sentinel:1: imports "a"', 'policies/x.sentinel:12: imports "b"']);
  });

  it('--validate lists them and exits 0; --strict-imports makes them errors', async (t) => {
    const dir = await tempTree(t, tree);
    const warned = await runCli(['--validate', '--source-dir', dir]);
    assert.equal(warned.code, 0, warned.stdout + warned.stderr);
    assert.match(warned.stdout, /warning: policies\/uses-module\.sentinel:2: imports "tfplan-functions"/);
    const strict = await runCli(['--validate', '--source-dir', dir, '--strict-imports']);
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, /2 problems in/);
    assert.match(strict.stdout, /policies\/checks\.rego:6: imports data\.shared\.missing/);
  });
});
