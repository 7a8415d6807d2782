/**
 * A published JSON Schema (`schemas/<name>.schema.json`) compiled as a consumer of it would: ajv's strict mode, on its
 * own (not the tool's validator of src/yaml/schema.ts), once per process. A schema takes ajv a few tenths of a
 * second to compile, and the test files of a worker share its process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { REPO_ROOT } from './repo-root.js';

const compiled = new Map<string, ValidateFunction>();

/** The validator of `schemas/<name>.schema.json`: its `errors` are those of the last document it was given. */
export function publishedSchema(name: 'plan' | 'notification'): ValidateFunction {
  let validate = compiled.get(name);
  if (validate === undefined) {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', `${name}.schema.json`), 'utf8')) as object;
    validate = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true }).compile(schema);
    compiled.set(name, validate);
  }
  return validate;
}
