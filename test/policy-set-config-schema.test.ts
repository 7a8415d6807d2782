/**
 * A set's config file checked against the schema of its blocks and attributes, by --validate and by the emulator's
 * ingestion alike: a typo is one diagnostic with its file, line and the closest known name; a missing closing quote is
 * one diagnostic and a count, not a flood; a level of another kind and a parameter no policy declares are refused.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { tarGz } from './helpers/tar-gz.js';
import { useWorld } from './helpers/world.js';

const POLICY = 'param limit default 3\nmain = rule { limit > 0 }\n';

describe('a set\'s config file against its schema', () => {
  const fixture = useWorld({ organizations: [{ name: ORG }] });

  it('a misspelled block or attribute is one problem with file, line, column and the closest name; nothing is sent', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/typo/sentinel.hcl': 'polcy "a" {\n  source = "./a.sentinel"\n}\n\npolicy "b" {\n  source = "./a.sentinel"\n  enforcment_level = "advisory"\n}\n',
      'policy-sets/typo/a.sentinel': POLICY,
    });
    await world.clearRequests();
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const lines = run.stdout.split('\n').filter((line) => line.includes('sentinel.hcl'));
    assert.deepEqual(lines.map((line) => line.trim()), [
      'policy-sets/typo/sentinel.hcl:1: unknown block "polcy"; did you mean "policy"? (column 1)',
      'policy-sets/typo/sentinel.hcl:7: policy "b": unknown attribute "enforcment_level"; did you mean "enforcement_level"? (column 3)',
    ]);
    assert.deepEqual(await world.requests(), []);
  });

  it('a missing closing quote is one diagnostic and a count of those that follow from it, in a few hundred bytes', async () => {
    const { world } = fixture;
    const policies = Array.from({ length: 200 }, (_, i) => `policy "p${i}" {\n  source = "./a.sentinel"\n  enforcement_level = "advisory"\n}\n`).join('\n');
    const dir = await fixture.repo({
      'policy-sets/quote/sentinel.hcl': `policy "first" {\n  source = "./a.sentinel\n  enforcement_level = "advisory"\n}\n${policies}`,
      'policy-sets/quote/a.sentinel': POLICY,
    });
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.ok(run.stdout.length + run.stderr.length < 2_000, `${run.stdout.length + run.stderr.length} bytes of output`);
    assert.match(run.stdout, /policy-sets\/quote\/sentinel\.hcl:2: does not parse as HCL: sentinel\.hcl:2,\d+-\d+,\d+: Invalid multi-line string; [^\n]* \(\d+ more diagnostics follow from it\)/);
  });

  it('a level of the other kind and a param block no policy declares are refused; imports, params and the sentinel block are known', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/levels/sentinel.hcl': [
        'import "module" "m" {\n  source = "./m.sentinel"\n}\n',
        'import "static" "data" {\n  source = "./data.json"\n  format = "json"\n}\n',
        'policy "a" {\n  source = "./a.sentinel"\n  enforcement_level = "mandatory"\n  params = { limt = 4 }\n}\n',
        'param "limits" {\n  value = 5\n}\n',
        'sentinel {\n  features = { apply-all = true }\n}\n',
      ].join('\n'),
      'policy-sets/levels/a.sentinel': POLICY,
      'policy-sets/levels/m.sentinel': 'x = 1\n',
      'policy-sets/levels/data.json': '{}\n',
      'policy-sets/rego/policies.hcl': 'policy "deny" {\n  query = "data.p.deny"\n  enforcement_level = "soft-mandatory"\n  source = "./p.rego"\n}\n',
      'policy-sets/rego/p.rego': 'package p\n',
    });
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    const lines = run.stdout.split('\n').filter((line) => line.includes('.hcl')).map((line) => line.trim());
    assert.deepEqual(lines, [
      'policy-sets/levels/sentinel.hcl:12: policy "a": enforcement_level "mandatory" is not one of hard-mandatory, soft-mandatory, advisory (column 3)',
      'policy-sets/levels/sentinel.hcl:16: param "limits" is a parameter of no policy of the set (none has `param limits`); did you mean "limit"? (column 1)',
      'policy-sets/rego/policies.hcl:3: policy "deny": enforcement_level "soft-mandatory" is not one of mandatory, advisory (column 3)',
      'policy-sets/rego/policies.hcl:4: policy "deny": unknown attribute "source" (column 3)',
    ]);
  });

  it('more problems than the cap: the first twenty, then how many more', async () => {
    const { world } = fixture;
    const typos = Array.from({ length: 25 }, (_, i) => `polcy "p${i}" {\n  source = "./a.sentinel"\n}\n`).join('\n');
    const dir = await fixture.repo({ 'policy-sets/many/sentinel.hcl': typos, 'policy-sets/many/a.sentinel': POLICY });
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(run.stdout.split('\n').filter((line) => /unknown block "polcy"/.test(line)).length, 20);
    assert.match(run.stdout, /policy-sets\/many\/sentinel\.hcl: and 5 more problems of the same kind/);
  });

  it('the emulator errors a version whose config file has an unknown block, with the diagnostic as its error-message', async () => {
    const { world } = fixture;
    const created = await world.call('POST', `/organizations/${ORG}/policy-sets`, { body: { data: { type: 'policy-sets', attributes: { name: 'typo-upload' } } } });
    const set = created.json.data.id as string;
    const version = (await world.call('POST', `/policy-sets/${set}/versions`)).json.data as { id: string; links: { upload: string } };
    const archive = tarGz({ 'native.hcl': 'policy "a" {\n  source = "./a.sentinel"\n  enforcment_level = "advisory"\n}\n', 'a.sentinel': POLICY });
    await world.setBehaviour({ 'ingestion-ms': 0 });
    try {
      const put = await fetch(version.links.upload, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: archive });
      assert.equal(put.status, 200);
      const read = (await world.call('GET', `/policy-set-versions/${version.id}`)).json.data.attributes as { status: string; 'error-message': string };
      assert.deepEqual([read.status, read['error-message']], ['errored', 'native.hcl:3,3: policy "a": unknown attribute "enforcment_level"; did you mean "enforcement_level"?']);
    } finally {
      await world.setBehaviour({ 'ingestion-ms': 500 });
    }
  });
});
