/**
 * Agent pools' authentication tokens, in go-tfe's shapes (`agent_token.go`): list and create per pool, show and delete
 * by id. The token's text is in the create's answer only; every other answer carries its metadata.
 */
import { JSON_API, invalid, isObject, readJsonBody, type Reply } from './http.js';
import { newId, randomSuffix } from './ids.js';
import { requirePool } from './lookups.js';
import { notFound } from './http.js';
import { paginate } from './pagination.js';
import type { Context, Route } from './router.js';
import { tokensOf, type Store, type TokenRecord } from './store.js';

const BASE = '/api/v2';

/** The user every token is made by: the emulator has one user, whoever holds its API token. */
export const EMULATOR_USER = 'user-EmulatorUser00001';

export const tokenRoutes: Route[] = [
  { method: 'GET', pattern: '/agent-pools/:id/authentication-tokens', handler: listTokens },
  { method: 'POST', pattern: '/agent-pools/:id/authentication-tokens', handler: createToken },
  { method: 'GET', pattern: '/authentication-tokens/:id', handler: (ctx) => ({ status: 200, body: { data: tokenResource(requireToken(ctx.store, ctx.params.id)) } }) },
  { method: 'DELETE', pattern: '/authentication-tokens/:id', handler: deleteToken },
];

export function requireToken(store: Store, id: string | undefined): TokenRecord {
  const token = id === undefined ? undefined : store.tokens.get(id);
  if (token === undefined) throw notFound();
  return token;
}

/** A token as every answer but the create's shows it: no text. */
export function tokenResource(token: TokenRecord, withText = false): Record<string, unknown> {
  return {
    id: token.id,
    type: 'authentication-tokens',
    attributes: {
      'created-at': token.createdAt,
      'last-used-at': token.lastUsedAt,
      description: token.description,
      ...(withText ? { token: token.token } : {}),
    },
    relationships: { 'created-by': { data: { id: token.createdBy, type: 'users' } } },
    links: { self: `${BASE}/authentication-tokens/${token.id}` },
  };
}

function listTokens(ctx: Context): Reply {
  const pool = requirePool(ctx.store, ctx.params.id);
  const page = paginate(tokensOf(ctx.store, pool.id), ctx.query, `${ctx.origin}${BASE}${ctx.path}`, ctx.repeatItems);
  return { status: 200, body: { data: page.items.map((token) => tokenResource(token)), links: page.links, meta: { pagination: page.pagination } } };
}

/** The body go-tfe sends: `{"data": {"type": "agent-tokens", "attributes": {"description": "..."}}}`; a description is required. */
async function createToken(ctx: Context): Promise<Reply> {
  const pool = requirePool(ctx.store, ctx.params.id);
  const body = await readJsonBody(ctx.req, JSON_API);
  const data = isObject(body) ? body.data : undefined;
  if (!isObject(data) || (data.type !== 'agent-tokens' && data.type !== 'authentication-tokens')) throw invalid('data.type must be agent-tokens', '/data/type');
  const description = isObject(data.attributes) ? data.attributes.description : undefined;
  if (typeof description !== 'string' || description.trim() === '') throw invalid("Description can't be blank", '/data/attributes/description');
  const token: TokenRecord = {
    id: newId('at'),
    poolId: pool.id,
    description,
    token: `${randomSuffix(14)}.atlasv1.${randomSuffix(64)}`,
    createdAt: new Date(ctx.now()).toISOString(),
    lastUsedAt: null,
    createdBy: EMULATOR_USER,
  };
  ctx.store.tokens.set(token.id, token);
  return { status: 201, body: { data: tokenResource(token, true) } };
}

function deleteToken(ctx: Context): Reply {
  const token = requireToken(ctx.store, ctx.params.id);
  ctx.store.tokens.delete(token.id);
  return { status: 204 };
}
