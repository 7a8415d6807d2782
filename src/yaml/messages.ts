import type { ErrorObject } from 'ajv/dist/2020.js';
import { closest } from '../suggest.js';
import { describeValue, keyLabel, type KeyPath } from './key-path.js';

/**
 * What a pattern or format in the published schemas means, for messages. Keyed as written in the schema. A pattern
 * not here is said by the schema's own description of the value when that is a noun phrase (`A workspace id (ws-
 * followed by …)`): the id patterns are, so that an id's shape is written only in src/api/ids.ts and the schemas
 * that repeat it (test/schema-id-patterns.test.ts holds them together).
 */
const HINTS: Readonly<Record<string, string>> = {
  '^[A-Za-z0-9_-]+$': 'is not a valid name (letters, digits, - and _)',
  '^[1-9][0-9]*[smhd]$': 'is not a duration (a whole number followed by s, m, h or d, e.g. 30s, 15m, 1h, 2d)',
  '^(0|[1-9][0-9]*)[smhd]$': 'is not a duration (a whole number followed by s, m, h or d, e.g. 0s, 15m, 1h, 7d)',
  '^(embedded|https?://[^\\s]+)$': 'is not "embedded" or an http(s) URL',
  '^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$': 'is not host:port (e.g. 127.0.0.1:9090)',
  '^[A-Za-z_][A-Za-z0-9_]*$': 'is not an environment variable name (letters, digits and _, not starting with a digit)',
  'date-time': 'is not an ISO 8601 date-time (e.g. 2026-01-01T00:00:00Z)',
  regex: 'is not a valid regular expression',
};

const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  null: 'null',
  number: 'a number',
  integer: 'a whole number',
};

/** Turns one ajv error (compiled with `verbose: true`) about the value at `path` into a sentence for a person editing the YAML. */
export function schemaMessage(error: ErrorObject, path: KeyPath): string {
  const label = keyLabel(path);
  const params = error.params as Record<string, unknown>;
  const value = describeValue(error.data);
  switch (error.keyword) {
    case 'type':
      return `${label} must be ${typeAndBounds(error.parentSchema ?? {})}, not ${value}`;
    case 'oneOf':
    case 'anyOf':
      return `${label} must be ${expected(error.parentSchema ?? {})}, not ${value}`;
    case 'additionalProperties': {
      const allowed = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      const key = String(params.additionalProperty);
      const where = path.length === 0 ? '' : ` in ${label}`;
      const guess = closest(key, allowed);
      const suggestion = guess === null ? '' : `: did you mean "${guess}"?`;
      return `unknown key "${key}"${where}${suggestion} (allowed: ${allowed.join(', ')})`;
    }
    case 'enum':
      return `${label} ${value} is not one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${label} ${value} ${HINTS[String(params.pattern)] ?? describedPattern(error.parentSchema) ?? `does not match ${String(params.pattern)}`}`;
    case 'format':
      return `${label} ${value} ${HINTS[String(params.format)] ?? `is not a valid ${String(params.format)}`}`;
    case 'minItems':
    case 'minLength':
      return params.limit === 1 ? `${label} must not be empty` : `${label} ${error.message ?? 'is too short'}`;
    case 'uniqueItems':
      return `${label} lists ${describeValue((error.data as unknown[])[Number(params.j)])} twice`;
    case 'required':
      return `${label} is missing the key "${String(params.missingProperty)}"`;
    case 'const':
      return `${label} must be ${JSON.stringify(params.allowedValue)}, not ${value}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${label} must be ${bounds(error.parentSchema ?? {}) || error.message}, not ${value}`;
    default:
      return `${label} ${error.message ?? 'is not valid'}`;
  }
}

/** `is not a workspace id (…)` from a description that names the value (`A workspace id (…).`); null for any other. */
function describedPattern(schema: Record<string, unknown> | undefined): string | null {
  const description = schema?.description;
  if (typeof description !== 'string' || !/^An? /.test(description)) return null;
  return `is not ${description.charAt(0).toLowerCase()}${description.slice(1).replace(/\.$/, '')}`;
}

/** What a (sub)schema accepts, in words: `a whole number 0 or more`, `"auto" or a number above 0`. */
function expected(schema: Record<string, unknown>): string {
  const branches = (schema.oneOf ?? schema.anyOf) as Record<string, unknown>[] | undefined;
  if (branches !== undefined) return branches.map(expected).join(' or ');
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of: ${schema.enum.join(', ')}`;
  return typeAndBounds(schema);
}

function typeAndBounds(schema: Record<string, unknown>): string {
  const types = [schema.type ?? []].flat().map((type) => TYPE_WORDS[String(type)] ?? String(type));
  const range = bounds(schema);
  return range === '' ? types.join(' or ') : `${types.join(' or ')} ${range}`;
}

/** The numeric bounds of a schema in words: `0 or more`, `above 0`, `100 to 599`. */
function bounds(schema: Record<string, unknown>): string {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  if (typeof minimum === 'number' && typeof maximum === 'number') return `${minimum} to ${maximum}`;
  const words: string[] = [];
  if (typeof minimum === 'number') words.push(`${minimum} or more`);
  if (typeof exclusiveMinimum === 'number') words.push(`above ${exclusiveMinimum}`);
  if (typeof maximum === 'number') words.push(`${maximum} or less`);
  if (typeof exclusiveMaximum === 'number') words.push(`below ${exclusiveMaximum}`);
  return words.join(' and ');
}
