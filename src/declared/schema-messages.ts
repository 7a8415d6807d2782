import type { ErrorObject } from 'ajv/dist/2020.js';

/** What a pattern in the published schemas means, for messages. Keyed by the pattern as written in the schema. */
const PATTERN_HINTS: Readonly<Record<string, string>> = {
  '^polset-[A-Za-z0-9_-]+$': 'is not a policy set id (polset- followed by letters and digits)',
  '^ws-[A-Za-z0-9_-]+$': 'is not a workspace id (ws- followed by letters and digits)',
  '^[A-Za-z0-9_-]+$': 'is not a valid name (letters, digits, - and _)',
  '^[1-9][0-9]*[smhd]$': 'is not a duration (a whole number followed by s, m, h or d, e.g. 30s, 15m, 1h, 2d)',
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

/** `/agent-cleanup/statuses/0` -> `agent-cleanup.statuses[0]`; the root is `the file`. */
export function pointerLabel(pointer: string): string {
  if (pointer === '') return 'the file';
  let label = '';
  for (const segment of pointer.slice(1).split('/')) {
    const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
    label += /^\d+$/.test(key) ? `[${key}]` : label === '' ? key : `.${key}`;
  }
  return label;
}

/** A short rendering of a value for a message. */
export function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return JSON.stringify(value) ?? String(value);
}

/** Turns one ajv error (compiled with `verbose: true`) into a sentence for a person editing the YAML. */
export function schemaErrorMessage(error: ErrorObject): string {
  const label = pointerLabel(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type': {
      const expected = String(params.type).split(',').map((type) => TYPE_WORDS[type] ?? type);
      return `${label} must be ${expected.join(' or ')}, not ${describeValue(error.data)}`;
    }
    case 'additionalProperties': {
      const allowed = Object.keys((error.parentSchema?.properties as object | undefined) ?? {});
      const where = error.instancePath === '' ? '' : ` in ${label}`;
      return `unknown key "${String(params.additionalProperty)}"${where} (allowed: ${allowed.join(', ')})`;
    }
    case 'enum':
      return `${label} ${describeValue(error.data)} is not one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    case 'pattern':
      return `${label} ${describeValue(error.data)} ${PATTERN_HINTS[String(params.pattern)] ?? `must match ${String(params.pattern)}`}`;
    case 'minItems':
    case 'minLength':
      return `${label} must not be empty`;
    case 'uniqueItems':
      return `${label} lists ${describeValue((error.data as unknown[])[Number(params.j)])} twice`;
    case 'required':
      return `${label} is missing the key "${String(params.missingProperty)}"`;
    default:
      return `${label} ${error.message ?? 'is not valid'}`;
  }
}
