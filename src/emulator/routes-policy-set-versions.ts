/**
 * Policy set versions (docs/api-behaviour.md, Policy set versions): `POST /policy-sets/:id/versions` with no body
 * answers 201, `pending`, with `links.upload`; the archive is `PUT` there (no token: the link is its own authority, and
 * a request that carries an `Authorization` header is refused, as a pre-signed object store refuses a second
 * credential), within an hour. The version then reads `ingressing` until its ingestion ends on its own
 * (`behaviour.ingestion-ms` later on the emulator's clock: ingestion.ts), then `ready` or `errored`: a client must poll.
 * `current-version` is the newest version that became ready, `newest-version` the newest of all.
 */
import { badRequest, invalid, notFound, readBody, requireMediaType, ReplyError, type Reply } from './http.js';
import { newId, randomSuffix } from './ids.js';
import { ingest } from './ingest.js';
import { isVersioned, versionResource } from './policy-set-documents.js';
import { overLimit } from './policy-set-input.js';
import type { Context, Route } from './router.js';
import { requireSet } from './routes-policy-sets.js';
import { policiesOf, type VersionRecord } from './store.js';

/** Where upload links point: outside the API's base path, as the service's object store is outside its origin. */
export const UPLOAD_PREFIX = '/_archivist/v1/object/';
export const UPLOAD_TTL_MS = 60 * 60 * 1000;
/** The largest archive the emulator takes (the service documents no limit). */
export const MAX_ARCHIVE_BYTES = 64 * 1024 * 1024;

export const policySetVersionRoutes: Route[] = [
  { method: 'POST', pattern: '/policy-sets/:id/versions', handler: createVersion },
  { method: 'GET', pattern: '/policy-set-versions/:id', handler: showVersion },
];

/** Served under UPLOAD_PREFIX, without the API's token check. */
export const uploadRoutes: Route[] = [{ method: 'PUT', pattern: '/:key', handler: uploadArchive }];

function uploadLink(ctx: Context, version: VersionRecord): string | null {
  return version.uploadKey === null ? null : `${ctx.origin}${UPLOAD_PREFIX}${version.uploadKey}`;
}

function createVersion(ctx: Context): Reply {
  const set = requireSet(ctx.store, ctx.params.id);
  if (set.vcsRepo !== null) throw invalid('Versions of a policy set with a VCS repository come from the repository', '/data');
  if (policiesOf(ctx.store, set.org).some((policy) => policy.policySetIds.includes(set.id))) {
    throw invalid('A policy set with individual policies cannot take versions', '/data');
  }
  const org = ctx.store.orgs.get(set.org);
  const limit = org?.entitlements.versionedPolicySetLimit ?? null;
  if (limit !== null && !isVersioned(set) && [...(org?.policySets.values() ?? [])].filter(isVersioned).length >= limit) {
    throw overLimit('Versioned policy set', limit);
  }
  const at = new Date(ctx.now()).toISOString();
  const version: VersionRecord = {
    id: newId('polsetver'),
    setId: set.id,
    status: 'pending',
    outcome: null,
    settlesAt: null,
    errorMessage: null,
    statusTimestamps: { 'pending-at': at },
    createdAt: at,
    updatedAt: at,
    uploadKey: randomSuffix(32),
    uploadExpires: ctx.now() + UPLOAD_TTL_MS,
    policyCount: 0,
    policies: [],
  };
  ctx.store.versions.set(version.id, version);
  set.versionIds.push(version.id);
  return { status: 201, body: { data: versionResource(version, uploadLink(ctx, version)) } };
}

function showVersion(ctx: Context): Reply {
  const version = ctx.store.versions.get(ctx.params.id ?? '');
  if (version === undefined) throw notFound();
  return { status: 200, body: { data: versionResource(version, uploadLink(ctx, version)) } };
}

async function uploadArchive(ctx: Context): Promise<Reply> {
  if (ctx.req.headers.authorization !== undefined) throw badRequest('Only one auth mechanism allowed: the upload link carries its own');
  const key = ctx.params.key ?? '';
  const version = [...ctx.store.versions.values()].find((candidate) => candidate.uploadKey !== null && candidate.uploadKey === key);
  if (version === undefined) throw notFound();
  if (version.uploadExpires <= ctx.now()) throw new ReplyError(403, [{ status: '403', title: 'forbidden', detail: 'the upload link has expired' }]);
  requireMediaType(ctx.req, 'application/octet-stream');
  const archive = await readBody(ctx.req, MAX_ARCHIVE_BYTES);
  if (version.uploadKey === null) throw notFound();
  version.uploadKey = null;
  const set = requireSet(ctx.store, version.setId);
  const uploadedAt = ctx.now();
  const at = new Date(uploadedAt).toISOString();
  version.status = 'ingressing';
  version.statusTimestamps['ingressing-at'] = at;
  version.updatedAt = at;
  version.outcome = await ingest(archive, set.kind, ctx.behaviour.nativeKind);
  version.settlesAt = uploadedAt + ctx.behaviour.ingestionMs;
  ctx.store.ingesting.add(version.id);
  return { status: 200 };
}
