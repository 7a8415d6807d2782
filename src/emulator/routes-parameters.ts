/**
 * Policy set parameters (docs/api-behaviour.md, Policy set parameters): `vars` of category `policy-set` under
 * `/policy-sets/:id/parameters`, native sets only. A sensitive value is write-only: every answer gives it as `""`, and
 * a sensitive parameter cannot be made plain again.
 */
import { invalid, JSON_API, notFound, readJsonBody, type Reply } from './http.js';
import { newId } from './ids.js';
import { paginate } from './pagination.js';
import { parameterResource } from './policy-set-documents.js';
import type { ParameterRecord, PolicySetRecord } from './records.js';
import type { Context, Route } from './router.js';
import { requireSet } from './routes-policy-sets.js';
import { optionalBoolean, optionalString, readDocument } from './validate.js';

export const parameterRoutes: Route[] = [
  { method: 'GET', pattern: '/policy-sets/:id/parameters', handler: listParameters },
  { method: 'POST', pattern: '/policy-sets/:id/parameters', handler: createParameter },
  { method: 'GET', pattern: '/policy-sets/:id/parameters/:param', handler: (ctx) => one(ctx, requireParameter(ctx)) },
  { method: 'PATCH', pattern: '/policy-sets/:id/parameters/:param', handler: updateParameter },
  { method: 'DELETE', pattern: '/policy-sets/:id/parameters/:param', handler: deleteParameter },
];

function requireParameter(ctx: Context): { set: PolicySetRecord; parameter: ParameterRecord } {
  const set = requireSet(ctx.store, ctx.params.id);
  const parameter = set.parameters.get(ctx.params.param ?? '');
  if (parameter === undefined) throw notFound();
  return { set, parameter };
}

function one(ctx: Context, found: { set: PolicySetRecord; parameter: ParameterRecord }, status = 200): Reply {
  return { status, body: { data: parameterResource(found.set, found.parameter) } };
}

function listParameters(ctx: Context): Reply {
  const set = requireSet(ctx.store, ctx.params.id);
  const page = paginate([...set.parameters.values()], ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  return { status: 200, body: { data: page.items.map((parameter) => parameterResource(set, parameter)), links: page.links, meta: { pagination: page.pagination } } };
}

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkKey(set: PolicySetRecord, key: unknown, except: string | null): string {
  const pointer = '/data/attributes/key';
  if (typeof key !== 'string' || key === '') throw invalid("Key can't be blank", pointer);
  if (!KEY.test(key)) throw invalid('Key must be a valid identifier: letters, digits and _, not starting with a digit', pointer);
  if ([...set.parameters.values()].some((other) => other.key === key && other.id !== except)) throw invalid('Key has already been taken', pointer);
  return key;
}

async function createParameter(ctx: Context): Promise<Reply> {
  const set = requireSet(ctx.store, ctx.params.id);
  const { attributes } = readDocument(await readJsonBody(ctx.req, JSON_API), 'vars');
  if (set.kind !== 'native') throw invalid('Parameters are only available for policy sets of the native kind', '/data');
  if (attributes.category !== 'policy-set') throw invalid('Category is not included in the list', '/data/attributes/category');
  const parameter: ParameterRecord = {
    id: newId('var'),
    key: checkKey(set, attributes.key, null),
    value: optionalString(attributes, 'value', false) ?? '',
    sensitive: optionalBoolean(attributes, 'sensitive') ?? false,
  };
  set.parameters.set(parameter.id, parameter);
  return one(ctx, { set, parameter }, 201);
}

async function updateParameter(ctx: Context): Promise<Reply> {
  const found = requireParameter(ctx);
  const { attributes } = readDocument(await readJsonBody(ctx.req, JSON_API), 'vars');
  const { set, parameter } = found;
  if (attributes.category !== undefined && attributes.category !== 'policy-set') throw invalid('Category is not included in the list', '/data/attributes/category');
  const sensitive = optionalBoolean(attributes, 'sensitive');
  if (parameter.sensitive && sensitive === false) throw invalid('Sensitive cannot be changed from true to false', '/data/attributes/sensitive');
  const key = attributes.key === undefined ? parameter.key : checkKey(set, attributes.key, parameter.id);
  const value = optionalString(attributes, 'value', false);
  parameter.key = key;
  if (typeof value === 'string') parameter.value = value;
  if (sensitive !== undefined) parameter.sensitive = sensitive;
  return one(ctx, found);
}

function deleteParameter(ctx: Context): Reply {
  const { set, parameter } = requireParameter(ctx);
  set.parameters.delete(parameter.id);
  return { status: 204 };
}
