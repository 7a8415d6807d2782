/** The set config schema's count of a block's labels: one for a policy, a module or a param, two for an import, none for sentinel. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkSetConfigSchema, type ConfigFacts } from '../src/policy-set-config-schema.js';

const FACTS: ConfigFacts = { level: () => 'advisory', source: () => null, declaredParams: () => null };
const messages = (text: string) => checkSetConfigSchema(text, 'native', FACTS).map((d) => `${d.line}: ${d.message}`);

describe('a config block with the wrong number of labels', () => {
  it('is one problem naming the block, its line and the count it takes', () => {
    const text = [
      'policy "a" "b" {\n  source = "./a.sentinel"\n}\n',
      'sentinel "x" {\n}\n',
      'import "module" {\n  source = "./m.sentinel"\n}\n',
      'module {\n  source = "./n.sentinel"\n}\n',
    ].join('');
    assert.deepEqual(messages(text), [
      '1: policy "a" "b" takes 1 label',
      '4: sentinel "x" takes 0 labels',
      '6: import "module" takes 2 labels',
      '9: module takes 1 label',
    ]);
  });

  it('the right count is no problem: a policy, an import, a module, sentinel', () => {
    const text = 'policy "a" {\n  source = "./a.sentinel"\n}\nimport "module" "m" {\n  source = "./m.sentinel"\n}\nmodule "n" {\n  source = "./n.sentinel"\n}\nsentinel {\n}\n';
    assert.deepEqual(messages(text), []);
  });
});
