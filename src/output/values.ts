import { normalizeLineEnds } from '../line-ends.js';

/** A field value on one line: strings JSON-quoted (newlines escaped), lists as `["a", "b"]`, null as `null`. */
export function formatValue(value: unknown): string {
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(formatValue).join(', ')}]`;
  return JSON.stringify(value) ?? 'null';
}

/** A short description of a code text, for places that do not show it whole. */
export function describeCode(code: unknown): string {
  if (typeof code !== 'string') return '(none)';
  const lines = code === '' ? 0 : normalizeLineEnds(code).replace(/\n$/, '').split('\n').length;
  const bytes = Buffer.byteLength(code, 'utf8');
  return `(${lines} ${lines === 1 ? 'line' : 'lines'}, ${bytes} ${bytes === 1 ? 'byte' : 'bytes'})`;
}
