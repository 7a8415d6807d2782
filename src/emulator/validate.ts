/** Checks of JSON:API request documents shared by policy and pool inputs; each failure is a 422. */
import { invalid, isObject } from './http.js';

export const NAME_PATTERN = /^[A-Za-z0-9_-]+$/;

export interface RequestDocument {
  attributes: Record<string, unknown>;
  relationships: Record<string, unknown>;
}

export function readDocument(body: unknown, type: string): RequestDocument {
  if (!isObject(body) || !isObject(body.data)) throw invalid('data must be an object', '/data');
  const { data } = body;
  if (data.type !== type) throw invalid(`type must be ${type}`, '/data/type');
  const attributes = data.attributes ?? {};
  if (!isObject(attributes)) throw invalid('attributes must be an object', '/data/attributes');
  const relationships = data.relationships ?? {};
  if (!isObject(relationships)) throw invalid('relationships must be an object', '/data/relationships');
  return { attributes, relationships };
}

export function checkName(value: unknown): string {
  const pointer = '/data/attributes/name';
  if (value === undefined || value === null || value === '') throw invalid("Name can't be blank", pointer);
  if (typeof value !== 'string') throw invalid('Name must be a string', pointer);
  if (!NAME_PATTERN.test(value)) throw invalid('Name can only contain letters, numbers, -, and _', pointer);
  return value;
}

export function optionalString(attributes: Record<string, unknown>, key: string, nullable: boolean): string | null | undefined {
  const value = attributes[key];
  if (value === undefined) return undefined;
  if (typeof value === 'string' || (nullable && value === null)) return value;
  throw invalid(`${key} must be a string${nullable ? ' or null' : ''}`, `/data/attributes/${key}`);
}

export function optionalBoolean(attributes: Record<string, unknown>, key: string): boolean | undefined {
  const value = attributes[key];
  if (value === undefined) return undefined;
  if (typeof value === 'boolean') return value;
  throw invalid(`${key} must be true or false`, `/data/attributes/${key}`);
}

/** Ids of a to-many relationship, each of `type` and accepted by `exists`; undefined when absent. */
export function relationshipIds(
  relationships: Record<string, unknown>,
  key: string,
  type: string,
  exists: (id: string) => boolean,
): string[] | undefined {
  const relationship = relationships[key];
  if (relationship === undefined) return undefined;
  const pointer = `/data/relationships/${key}`;
  if (!isObject(relationship) || !Array.isArray(relationship.data)) throw invalid(`${key} data must be an array`, pointer);
  const ids: string[] = [];
  for (const [i, item] of relationship.data.entries()) {
    if (!isObject(item) || typeof item.id !== 'string' || item.type !== type) {
      throw invalid(`each ${key} element needs an id and type ${type}`, `${pointer}/data/${i}`);
    }
    if (!exists(item.id)) throw invalid(`${type} ${item.id} not found`, `${pointer}/data/${i}`);
    if (!ids.includes(item.id)) ids.push(item.id);
  }
  return ids;
}
