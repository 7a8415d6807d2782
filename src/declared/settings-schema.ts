import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { schemaErrorMessage } from './schema-messages.js';
import type { YamlSource } from './yaml-source.js';

export type SchemaName = 'policy-settings' | 'agent-pool';

/** One way a settings file breaks its schema. */
export interface SchemaIssue {
  /** JSON pointer of the offending value, e.g. `/policy-sets/0`. */
  pointer: string;
  keyword: string;
  line: number | undefined;
  message: string;
}

const compiled = new Map<SchemaName, ValidateFunction>();

/** The validator of a published schema (`schemas/<name>.schema.json`), compiled once: the schema is part of the package. */
function validatorFor(name: SchemaName): ValidateFunction {
  let validate = compiled.get(name);
  if (validate === undefined) {
    const schemaUrl = new URL(`../../schemas/${name}.schema.json`, import.meta.url);
    const schema = JSON.parse(readFileSync(schemaUrl, 'utf8')) as object;
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true });
    validate = ajv.compile(schema);
    compiled.set(name, validate);
  }
  return validate;
}

/** Validates a settings file against its schema; every issue carries the line of the value (or of the unknown key). */
export function checkSchema(name: SchemaName, source: YamlSource, value: unknown): SchemaIssue[] {
  const validate = validatorFor(name);
  if (validate(value)) return [];
  const errors = keepTypeErrorsAlone(validate.errors ?? []);
  return errors.map((error) => ({
    pointer: error.instancePath,
    keyword: error.keyword,
    line: lineOfError(source, error),
    message: schemaErrorMessage(error),
  }));
}

function lineOfError(source: YamlSource, error: ErrorObject): number | undefined {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'additionalProperties') {
    return source.lineOfKey(error.instancePath, String(params.additionalProperty));
  }
  if (error.keyword === 'required' && error.instancePath !== '') {
    // The missing key belongs under the key that holds the mapping: point at that key.
    const slash = error.instancePath.lastIndexOf('/');
    const key = error.instancePath.slice(slash + 1).replace(/~1/g, '/').replace(/~0/g, '~');
    return source.lineOfKey(error.instancePath.slice(0, slash), key);
  }
  if (error.keyword === 'uniqueItems') return source.lineOf(`${error.instancePath}/${String(params.j)}`);
  return source.lineOf(error.instancePath);
}

/** A value of the wrong type also fails its enum or pattern; say only that the type is wrong. */
function keepTypeErrorsAlone(errors: ErrorObject[]): ErrorObject[] {
  const typed = new Set(errors.filter((error) => error.keyword === 'type').map((error) => error.instancePath));
  return errors.filter((error) => error.keyword === 'type' || !typed.has(error.instancePath));
}
