import { codeSummary } from '../code-content.js';
import type { Change, FieldChange, FieldValue } from './types.js';

/**
 * A change's fields as plain data, the form every plan document shows and a saved plan is checked by: each value
 * as it is (null for none), and code as a CodeSummary (its digest as compared, bytes and lines), never whole.
 */
export function plainFields(change: Change): Record<string, FieldChange> {
  const fields: Record<string, FieldChange> = {};
  for (const [name, field] of Object.entries(change.fields)) {
    const value = name === 'code' ? codeSummary : (v: FieldValue) => v ?? null;
    fields[name] = { before: value(field.before), after: value(field.after) };
  }
  return fields;
}
