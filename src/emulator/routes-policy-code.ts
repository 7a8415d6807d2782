/** Policy code: upload, download by redirect, and the temporary blob URLs the redirect points at. */
import { MAX_CODE_BYTES } from '../model.js';
import { notFound, readBody, requireMediaType, type Reply } from './http.js';
import { requirePolicy } from './lookups.js';
import type { Context, Route } from './router.js';
import { showPolicyReply } from './routes-policies.js';

export const BLOB_PREFIX = '/_emulator/blobs/';

export const policyCodeRoutes: Route[] = [
  { method: 'PUT', pattern: '/policies/:id/upload', handler: uploadPolicy },
  { method: 'GET', pattern: '/policies/:id/download', handler: downloadPolicy },
];

async function uploadPolicy(ctx: Context): Promise<Reply> {
  requirePolicy(ctx.store, ctx.params.id);
  requireMediaType(ctx.req, 'application/octet-stream');
  const code = await readBody(ctx.req, MAX_CODE_BYTES);
  const policy = requirePolicy(ctx.store, ctx.params.id);
  policy.code = code;
  policy.updatedAt = new Date(ctx.now()).toISOString();
  return showPolicyReply(ctx, policy);
}

function downloadPolicy(ctx: Context): Reply {
  const policy = requirePolicy(ctx.store, ctx.params.id);
  if (policy.code === null) throw notFound();
  const key = ctx.blobs.put(policy.code);
  return { status: 302, headers: { location: `${ctx.origin}${BLOB_PREFIX}${key}` } };
}

/** `GET /_emulator/blobs/:key`: the raw code, without Authorization. */
export function serveBlob(ctx: Context): Reply {
  const code = ctx.blobs.get(ctx.params.key ?? '');
  if (code === null) throw notFound();
  return { status: 200, headers: { 'content-type': 'text/plain' }, body: code };
}
