/**
 * `PATCH /_emulator/authentication-tokens/:id`: what an agent's use and time do to a token, which the API has no
 * endpoint for. `{"used": true}` marks it used now; `{"last-used-at": TIME | null}` and `{"created-at": TIME}` set
 * those times (a token made long ago, to be rotated). Answers the token's metadata, never its text.
 */
import { badRequest, isObject } from './http.js';
import type { Context } from './router.js';
import { requireToken, tokenResource } from './routes-tokens.js';

export function updateToken(ctx: Context, body: unknown): Record<string, unknown> {
  const token = requireToken(ctx.store, ctx.params.id);
  if (!isObject(body)) throw badRequest('body must be {"used": true} or {"created-at": TIME, "last-used-at": TIME | null}');
  const created = body['created-at'];
  const used = body['last-used-at'];
  if (created !== undefined && !isTime(created)) throw badRequest('created-at must be an ISO 8601 date-time');
  if (used !== undefined && used !== null && !isTime(used)) throw badRequest('last-used-at must be an ISO 8601 date-time or null');
  if (body.used !== undefined && body.used !== true) throw badRequest('used must be true');
  if (created !== undefined) token.createdAt = new Date(created).toISOString();
  if (used !== undefined) token.lastUsedAt = used === null ? null : new Date(used).toISOString();
  if (body.used === true) token.lastUsedAt = new Date(ctx.now()).toISOString();
  return tokenResource(token);
}

function isTime(value: unknown): value is string {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value));
}
