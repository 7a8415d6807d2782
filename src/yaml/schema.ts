import type { ErrorObject } from 'ajv/dist/2020.js';
import type { SourceProblem } from '../errors.js';
import type { YamlDocument } from './document.js';
import { pointerPath, type KeyPath } from './key-path.js';
import { schemaMessage } from './messages.js';
import * as validators from './schema-validators.generated.js';

/** The published JSON Schemas (draft 2020-12), `schemas/<name>.schema.json`; editors use them to complete the YAML. */
export type SchemaName = 'config' | 'policy-settings' | 'policy-set' | 'agent-pool' | 'emulator-seed' | 'plan';

/** One way a value breaks its schema. */
export interface SchemaIssue {
  /** The value the message is about. */
  path: KeyPath;
  /** The ajv keyword that failed, e.g. `enum`. */
  keyword: string;
  message: string;
  /** Where to point in the file: the value at `linePath`, or its key (an unknown or a missing key). */
  linePath: KeyPath;
  at: 'value' | 'key';
}

/**
 * The validators of the published schemas, compiled ahead of time from `schemas/` by scripts/schema-validators.mjs
 * (ajv with `allErrors` and `verbose`; test/schema-validators.test.ts fails when they are out of date), so that no
 * process pays for compiling a schema. The formats are checked by schema-formats.ts.
 */
const VALIDATORS: Readonly<Record<SchemaName, validators.SchemaValidator>> = {
  config: validators.config,
  'policy-settings': validators.policySettings,
  'policy-set': validators.policySet,
  'agent-pool': validators.agentPool,
  'emulator-seed': validators.emulatorSeed,
  plan: validators.plan,
};

/** The errors of `value` against the schema `name` as ajv reports them (with `verbose`), for callers that word them their own way. */
export function schemaErrors(name: SchemaName, value: unknown): ErrorObject[] {
  const validate = VALIDATORS[name];
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

/** Every way `value` breaks the schema `name`, one issue per mistake. */
export function schemaIssues(name: SchemaName, value: unknown): SchemaIssue[] {
  const validate = VALIDATORS[name];
  if (validate(value)) return [];
  // An `if` error ("must match "then" schema") only repeats what the branch's own errors say.
  const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'if');
  return keepTypeErrorsAlone(withoutBranchErrors(errors)).map(toIssue);
}

/**
 * Validates a YAML document (or `value`, e.g. an empty file read as `{}`) against a published schema.
 * Every problem names the file, the line, and the key path in its message. `skip` drops issues the caller reports better itself.
 */
export function checkYaml(
  name: SchemaName,
  doc: YamlDocument,
  options: { value?: unknown; skip?: (issue: SchemaIssue) => boolean } = {},
): SourceProblem[] {
  const issues = schemaIssues(name, 'value' in options ? options.value : doc.value);
  return issues.filter((issue) => !(options.skip?.(issue) ?? false)).map((issue) => doc.problem(issue.linePath, issue.message, issue.at));
}

function toIssue(error: ErrorObject): SchemaIssue {
  const path = pointerPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const issue = { path, keyword: error.keyword, message: schemaMessage(error, path) };
  switch (error.keyword) {
    case 'additionalProperties':
      return { ...issue, linePath: [...path, String(params.additionalProperty)], at: 'key' };
    case 'required':
      // The missing key belongs under the key that holds the mapping: point at that key.
      return { ...issue, linePath: path, at: 'key' };
    case 'uniqueItems':
      return { ...issue, linePath: [...path, Number(params.j)], at: 'value' };
    default:
      return { ...issue, linePath: path, at: 'value' };
  }
}

/** A failed oneOf or anyOf is described as a whole ("must be "auto" or a number above 0"); what each branch said is dropped. */
function withoutBranchErrors(errors: ErrorObject[]): ErrorObject[] {
  const failed = errors.filter((error) => error.keyword === 'oneOf' || error.keyword === 'anyOf');
  const isBranchOf = (error: ErrorObject, whole: ErrorObject): boolean =>
    error.schemaPath.startsWith(`${whole.schemaPath}/`) && error.instancePath.startsWith(whole.instancePath);
  return errors.filter((error) => !failed.some((whole) => isBranchOf(error, whole)));
}

/** A value of the wrong type also fails its enum or pattern; say only that the type is wrong. */
function keepTypeErrorsAlone(errors: ErrorObject[]): ErrorObject[] {
  const typed = new Set(errors.filter((error) => error.keyword === 'type').map((error) => error.instancePath));
  return errors.filter((error) => error.keyword === 'type' || !typed.has(error.instancePath));
}
