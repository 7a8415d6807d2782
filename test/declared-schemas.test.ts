import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { REPO_ROOT } from './helpers/repo-root.js';

const SCHEMAS = path.join(REPO_ROOT, 'schemas');

interface SchemaNode {
  title?: unknown;
  description?: unknown;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
}

/** Every property and list item, with its path, so editors can complete and document each one. */
function* documentedNodes(node: SchemaNode, at: string): Generator<[string, SchemaNode]> {
  yield [at, node];
  for (const [key, child] of Object.entries(node.properties ?? {})) yield* documentedNodes(child, `${at}.${key}`);
  if (node.items) yield* documentedNodes(node.items, `${at}[]`);
}

describe('the published JSON Schemas', () => {
  for (const file of ['policy-settings.schema.json', 'agent-pool.schema.json']) {
    it(`${file} is a valid draft 2020-12 schema with a title and description everywhere, and no unknown keys`, async () => {
      const schema = JSON.parse(await readFile(path.join(SCHEMAS, file), 'utf8')) as SchemaNode & Record<string, unknown>;
      assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
      const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
      const validate = ajv.compile(schema);
      assert.equal(validate({ 'no-such-key': 1 }), false);
      assert.equal(validate({}), true);
      for (const [at, node] of documentedNodes(schema, '$')) {
        assert.equal(typeof node.title, 'string', `${file} ${at} has a title`);
        assert.ok(typeof node.description === 'string' && node.description.length > 10, `${file} ${at} has a description`);
      }
    });
  }

  it('a YAML set\'s rollout for its members is a policy\'s rollout, and its enforcement-level the same words', async () => {
    const read = async (file: string) => JSON.parse(await readFile(path.join(SCHEMAS, file), 'utf8')) as { properties: Record<string, SchemaNode & Record<string, unknown>> };
    const policy = (await read('policy-settings.schema.json')).properties;
    const set = (await read('policy-set.schema.json')).properties;
    const { title: _t, description: _d, ...rollout } = policy['rollout']!;
    const { title: _st, description: _sd, ...setRollout } = set['rollout']!;
    assert.deepEqual(setRollout, rollout);
    assert.deepEqual(set['enforcement-level']!['enum'], policy['enforcement-level']!['enum']);
  });
});
