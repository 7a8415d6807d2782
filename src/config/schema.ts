import { readFile } from 'node:fs/promises';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** The published JSON Schema of the config file; editors can use it to complete the YAML. */
export const CONFIG_SCHEMA_URL = new URL('../../schemas/config.schema.json', import.meta.url);

/** One schema violation: the key path that is wrong, as segments, and what is wrong with it. */
export interface SchemaViolation {
  path: (string | number)[];
  /** Whether `path` names a key that should not be there (its line is the key's line). */
  unknownKey: boolean;
  message: string;
}

export type ConfigSchemaCheck = (value: unknown) => SchemaViolation[];

export async function compileConfigSchema(): Promise<ConfigSchemaCheck> {
  const schema = JSON.parse(await readFile(CONFIG_SCHEMA_URL, 'utf8')) as object;
  const validate: ValidateFunction = new Ajv({ allErrors: true, strict: true }).compile(schema);
  return (value) => (validate(value) ? [] : describeErrors(validate.errors ?? []));
}

function describeErrors(errors: ErrorObject[]): SchemaViolation[] {
  const violations: SchemaViolation[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // A oneOf failure repeats what its branches said; the branch errors carry the detail.
    if (error.keyword === 'oneOf' || error.keyword === 'const') continue;
    const violation = describeError(error);
    const key = `${violation.path.join('.')}|${violation.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    violations.push(violation);
  }
  return violations;
}

function describeError(error: ErrorObject): SchemaViolation {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
  const params = error.params as Record<string, unknown>;
  if (path.at(-1) === 'rate-limit') {
    return { path, unknownKey: false, message: 'must be "auto" or a number of requests per second above 0' };
  }
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: [...path, String(params.additionalProperty)], unknownKey: true, message: 'unknown key' };
    case 'required':
      return { path, unknownKey: false, message: `missing required key "${String(params.missingProperty)}"` };
    case 'enum':
      return { path, unknownKey: false, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'pattern':
      return { path, unknownKey: false, message: patternMessage(path) };
    default:
      return { path, unknownKey: false, message: error.message ?? 'is invalid' };
  }
}

function patternMessage(path: (string | number)[]): string {
  switch (path.at(-1)) {
    case 'url':
      return 'must be "embedded" or an http(s) URL';
    case 'listen':
      return 'must be host:port, e.g. 127.0.0.1:9090';
    case 'name':
      return 'must contain only letters, digits, "-" and "_"';
    case 'webhook-secret-env':
      return 'must be an environment variable name';
    default:
      return 'has an invalid format';
  }
}
