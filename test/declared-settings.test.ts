import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codeDigest } from '../src/code-content.js';
import { readDeclared, type DeclaredPolicy } from '../src/declared/index.js';
import type { SourceProblem } from '../src/errors.js';
import { problemsOf } from './helpers/declared-problems.js';
import { useTempTrees } from './helpers/temp-tree.js';

const NATIVE = 'main = rule { true }\n';
const REGO = 'package example\n\ndeny contains msg if { false }\n';

describe('policy settings', () => {
  const dirOf = useTempTrees();
  async function readOne(code: string, settings: string | null): Promise<DeclaredPolicy> {
    const files: Record<string, string> = { [code]: code.endsWith('.rego') ? REGO : NATIVE };
    if (settings !== null) files[code.replace(/\.\w+$/, '.yaml')] = settings;
    const { policies } = await readDeclared(await dirOf(files));
    assert.equal(policies.length, 1);
    return policies[0] as DeclaredPolicy;
  }
  async function problemsFor(code: string, settings: string): Promise<Array<Omit<SourceProblem, 'file'> & { file?: string }>> {
    const yamlFile = code.replace(/\.\w+$/, '.yaml');
    const problems = await problemsOf(readDeclared(await dirOf({ [code]: code.endsWith('.rego') ? REGO : NATIVE, [yamlFile]: settings })));
    return problems.map(({ file, ...rest }) => (file === yamlFile ? rest : { file, ...rest }));
  }

  it('reads every key', async () => {
    const policy = await readOne(
      'policies/aws/full.rego',
      'description: |\n  Requires **tags** on `aws_instance`.\nenforcement-level: mandatory\nquery: data.example.deny\npolicy-sets: [polset-abc123, polset-XYZ]\n',
    );
    assert.deepEqual(
      { ...policy, codeSource: undefined },
      {
        name: 'full',
        kind: 'opa',
        file: 'policies/aws/full.rego',
        codeSource: undefined,
        settingsFile: 'policies/aws/full.yaml',
        codeDigest: codeDigest(REGO),
        code: null,
        codeLines: 3,
        description: 'Requires **tags** on `aws_instance`.\n',
        enforcementLevel: 'mandatory',
        query: 'data.example.deny',
        policySets: ['polset-abc123', 'polset-XYZ'],
        // The lines of policy-sets and its entries, for a name that matches nothing to name its line.
        lines: { 'policy-sets': 5, 'policy-sets.0': 5, 'policy-sets.1': 5 },
        // Its own settings declare its level: no YAML set's applies to it.
        levelFrom: 'policies/aws/full.yaml',
      },
    );
  });

  it('defaults: no settings file, an empty one, a comment-only one, explicit nulls', async () => {
    for (const settings of [null, '', '# nothing yet\n', 'description: null\n']) {
      const policy = await readOne('policies/d.native', settings);
      assert.deepEqual([policy.description, policy.enforcementLevel, policy.query, policy.policySets], [null, 'advisory', null, null], String(settings));
    }
    const managedEmpty = await readOne('policies/d.native', 'policy-sets: []\nenforcement-level: hard-mandatory\n');
    assert.deepEqual([managedEmpty.policySets, managedEmpty.enforcementLevel], [[], 'hard-mandatory']);
  });

  it('a level that does not fit the kind names the file and line', async () => {
    assert.deepEqual(await problemsFor('policies/aws/foo.native', 'description: x\nenforcement-level: mandatory\n'), [
      { line: 2, message: 'enforcement-level "mandatory" is not valid for a native policy (hard-mandatory, soft-mandatory, advisory)' },
    ]);
    assert.deepEqual(await problemsFor('policies/r.rego', 'query: data.x.deny\nenforcement-level: soft-mandatory\n'), [
      { line: 2, message: 'enforcement-level "soft-mandatory" is not valid for an opa policy (mandatory, advisory)' },
    ]);
    assert.deepEqual(await problemsFor('policies/n.native', 'enforcement-level: strict\n'), [
      { line: 1, message: 'enforcement-level "strict" is not valid for a native policy (hard-mandatory, soft-mandatory, advisory)' },
    ]);
  });

  it('query: required for opa, not allowed for native', async () => {
    assert.deepEqual(await problemsFor('policies/q.rego', 'description: no query\n'), [
      { message: 'query is required for an opa policy (e.g. query: data.terraform.example.deny)' },
    ]);
    const missing = await problemsOf(readDeclared(await dirOf({ 'policies/q.rego': REGO })));
    assert.deepEqual(missing, [
      { file: 'policies/q.rego', message: 'an opa policy needs a settings file q.yaml beside it with its query (e.g. query: data.terraform.example.deny)' },
    ]);
    const native = await problemsFor('policies/n.native', 'description: x\n\nquery: data.x.deny\n');
    assert.equal(native.length, 1);
    assert.equal(native[0]?.line, 3);
    assert.match(native[0]?.message ?? '', /^query is not allowed for a native policy/);
  });

  it('unknown keys are reported at the line of the key, with the key that was most likely meant', async () => {
    assert.deepEqual(await problemsFor('policies/u.native', 'description: x\n# a comment\nenforcement_level: advisory\n'), [
      { line: 3, message: 'unknown key "enforcement_level": did you mean "enforcement-level"? (allowed: description, enforcement-level, query, policy-sets, rollout)' },
    ]);
  });

  it('wrong types and bad ids, all at once, each at its line', async () => {
    const settings = ['description: 42', 'enforcement-level: [advisory]', 'policy-sets:', '  - polset-ok', '  - ws-wrong', '  - polset-ok', 'extra: 1', ''].join('\n');
    assert.deepEqual(await problemsFor('policies/t.native', settings), [
      { line: 1, message: 'description must be a string or null, not 42' },
      { line: 2, message: 'enforcement-level must be a string, not a list' },
      { line: 5, message: 'policy-sets[1] "ws-wrong" is not a policy set name or id (a name: letters, digits, - and _; an id: polset- followed by at most 64 letters, digits, - and _; never another resource\'s id)' },
      { line: 6, message: 'policy-sets lists "polset-ok" twice' },
      { line: 7, message: 'unknown key "extra" (allowed: description, enforcement-level, query, policy-sets, rollout)' },
    ]);
    assert.deepEqual(await problemsFor('policies/l.native', '- description: x\n'), [{ line: 1, message: 'the file must be a mapping, not a list' }]);
    assert.deepEqual(await problemsFor('policies/s.native', 'policy-sets: polset-abc\n'), [{ line: 1, message: 'policy-sets must be a list, not "polset-abc"' }]);
  });

  it('a policy set id over the bound is refused at read, named by its start and length, never echoed whole', async () => {
    const long = `polset-${'a'.repeat(20_000)}`;
    const problems = await problemsFor('policies/long.native', `policy-sets:\n  - ${long}\n`);
    assert.equal(problems.length, 1);
    assert.equal(problems[0]?.line, 2);
    assert.match(problems[0]?.message ?? '', /^policy-sets\[0\] "polset-a+…" \(20007 characters\) is not a policy set name or id/);
    assert.ok((problems[0]?.message.length ?? 0) < 300, problems[0]?.message);
  });

  it('YAML syntax errors name the file and line', async () => {
    const unclosed = await problemsFor('policies/s.native', 'enforcement-level: advisory\ndescription: "open\n');
    assert.ok(unclosed.length >= 1);
    assert.equal(unclosed[0]?.line, 2);
    assert.match(unclosed[0]?.message ?? '', /^YAML syntax error: /);
    const duplicate = await problemsFor('policies/d.native', 'description: a\ndescription: b\n');
    assert.deepEqual(duplicate, [{ line: 2, message: 'YAML syntax error: Map keys must be unique' }]);
  });

  it('problems of several settings files come in one error', async () => {
    const problems = await problemsOf(
      readDeclared(
        await dirOf({
          'policies/a.native': NATIVE,
          'policies/a.yaml': 'enforcement-level: mandatory\n',
          'policies/b.native': NATIVE,
          'policies/b.yaml': 'descripton: typo\n',
          'policies/c.rego': REGO,
          'policies/c.yaml': 'query: [1]\n',
        }),
      ),
    );
    assert.deepEqual(
      problems.map((p) => `${p.file}:${p.line}`),
      ['policies/a.yaml:1', 'policies/b.yaml:1', 'policies/c.yaml:1'],
    );
  });
});
