/**
 * The validators the tool runs (src/yaml/schema-validators.generated.ts) are what schemas/ gives today: compiled ahead
 * of time by scripts/schema-validators.mjs (`npm run schema-validators`), they would otherwise go on checking YAML and
 * saved plans against a schema that has since changed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { schemaErrors } from '../src/yaml/schema.js';
import { FORMATS } from '../src/yaml/schema-formats.js';
import { REPO_ROOT } from './helpers/repo-root.js';

interface Generator {
  GENERATED: string;
  FORMAT_NAMES: string[];
  generate(): string;
}

const generator = (await import(pathToFileURL(join(REPO_ROOT, 'scripts/schema-validators.mjs')).href)) as Generator;

test('the compiled validators are those of schemas/ as it is (else: npm run schema-validators)', () => {
  assert.ok(readFileSync(generator.GENERATED, 'utf8') === generator.generate(), 'src/yaml/schema-validators.generated.ts is out of date: run npm run schema-validators');
});

test('every format the schemas use is checked by src/yaml/schema-formats.ts, as the code reads the value', () => {
  assert.deepEqual(Object.keys(FORMATS).sort(), [...generator.FORMAT_NAMES].sort());
  const formatErrors = (seed: object) => schemaErrors('emulator-seed', seed).filter((e) => e.keyword === 'format').map((e) => `${e.instancePath} ${String(e.params['format'])}`);
  const run = (createdAt: string) => ({ organizations: [{ name: 'o', runs: [{ workspace: 'ws-a', 'created-at': createdAt }] }] });
  assert.deepEqual(formatErrors(run('2026-11-28T09:00:00Z')), []);
  assert.deepEqual(formatErrors(run('2026-11-28 09:00')), ['/organizations/0/runs/0/created-at date-time']);
  // The shape of a date-time, but no date: month 13.
  assert.deepEqual(formatErrors(run('2026-13-01T09:00:00Z')), ['/organizations/0/runs/0/created-at date-time']);
  assert.deepEqual(formatErrors({ faults: [{ path: '^/policies$' }] }), []);
  assert.deepEqual(formatErrors({ faults: [{ path: '(unclosed' }] }), ['/faults/0/path regex']);
});
