/** Lenient readers for JSON:API documents: accept what real servers send, fail only when a resource is unusable. */

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function field(value: unknown, key: string): unknown {
  return isObject(value) ? value[key] : undefined;
}

export function str(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

export function requiredStr(resource: unknown, path: string, value: unknown): string {
  if (typeof value === 'string') return value;
  const id = str(field(resource, 'id')) ?? 'resource';
  throw new TypeError(`${id} has no ${path}`);
}

export function int(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return fallback;
}

/** Ids of a to-many relationship; a missing relationship is empty. */
export function relatedIds(resource: unknown, name: string): string[] {
  const data = field(field(field(resource, 'relationships'), name), 'data');
  if (!Array.isArray(data)) return [];
  return data.map((item) => str(field(item, 'id'))).filter((id): id is string => id !== null);
}

/** The `data` member of a single-resource document. */
export function primary(document: unknown): JsonObject {
  const data = field(document, 'data');
  if (!isObject(data)) throw new TypeError('document has no data object');
  return data;
}

/** The `data` member of a collection document. */
export function primaryList(document: unknown): unknown[] {
  const data = field(document, 'data');
  if (!Array.isArray(data)) throw new TypeError('document has no data array');
  return data;
}

/** Text of an error document: `{"errors":[{title, detail}]}` or the older `{"errors":["text"]}`. */
export function errorDetail(document: unknown): string | null {
  const errors = field(document, 'errors');
  if (!Array.isArray(errors)) return null;
  const parts = errors.map(errorText).filter((text) => text !== '');
  return parts.length > 0 ? parts.join('; ') : null;
}

function errorText(error: unknown): string {
  if (typeof error === 'string') return error;
  const title = str(field(error, 'title'));
  const detail = str(field(error, 'detail'));
  if (title !== null && detail !== null && title !== detail) return `${title}: ${detail}`;
  return detail ?? title ?? '';
}

/** The `source.pointer` of each error object of an error document. */
export function errorPointers(document: unknown): string[] {
  const errors = field(document, 'errors');
  if (!Array.isArray(errors)) return [];
  return errors.map((error) => str(field(field(error, 'source'), 'pointer'))).filter((pointer): pointer is string => pointer !== null);
}
