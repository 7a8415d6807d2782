/** What happens to each request: auth, rate limit, faults, routing, the answer and the request log. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.js';
import type { FaultList } from './faults.js';
import { settleDue } from './ingestion.js';
import { faultContext, fatPages, growing, hugeBody } from './hostile-replies.js';
import { JSON_API, ReplyError, errorReply, mediaType, receiveBody, type Reply } from './http.js';
import { MAX_CODE_BYTES } from '../model.js';
import { isRunList, RATE_LIMITED_BODY, type RateDecision, type RateLimiter } from './rate-limit.js';
import type { RequestLog } from './request-log.js';
import type { Context, Router } from './router.js';
import { errorMessage } from '../errors.js';

export interface Pipeline {
  api: Router;
  control: Router;
  blobs: Router;
  /** Policy set version upload links: no token (a request carrying one is refused), no rate limit. */
  uploads: Router;
  faults: FaultList;
  limiter: RateLimiter;
  /** The run lists' own limit, per minute, taken after the one of every endpoint. */
  runListLimiter: RateLimiter;
  log: RequestLog;
  logger: Logger;
  token: string;
}

/** `loggedPath` is the path after /api/v2 with the query as sent. */
export async function handleApi(p: Pipeline, ctx: Context, loggedPath: string, res: ServerResponse): Promise<void> {
  settleDue(ctx.store, ctx.now());
  const presented = bearer(ctx.req);
  const rate = takeRate(p, ctx, presented ?? '');
  const finish = (status: number | null): void => record(p, ctx, loggedPath, status);
  if (!sameToken(presented, p.token)) return answer(res, unauthorized(), rate.headers, JSON_API, finish);
  if (!rate.allowed) return answer(res, { status: 429, body: RATE_LIMITED_BODY }, rate.headers, JSON_API, finish);
  if (MUTATING.has(ctx.method) && mediaType(ctx.req) !== JSON_API) return answer(res, unsupportedMediaType(), rate.headers, JSON_API, finish);
  const fault = p.faults.take({ method: ctx.method, path: ctx.path, page: pageNumber(ctx.query) });
  const headers = { ...rate.headers, ...fault?.headers };
  if (fault?.kind === 'drop') return lose(ctx, res, finish);
  if (fault?.kind === 'status') {
    const status = fault.status ?? 503;
    return answer(res, errorReply(status, [{ status: String(status), title: 'injected fault', detail: `fault injected by the emulator` }]), headers, JSON_API, finish);
  }
  if (fault?.kind === 'latency') {
    // A write's body is received first (one cut off or too large fails its handler as it would without the delay),
    // then applied after the delay, as a server that got it does, whoever still listens.
    if (ctx.method !== 'GET') await receiveBody(ctx.req, MAX_CODE_BYTES).catch(() => undefined);
    if (!(await delay(res, fault['latency-ms'] ?? 1000, ctx.method === 'GET'))) return finish(null);
  }
  const reply = await route(p.api, faultContext(fault, ctx));
  if (fault?.kind === 'huge-body') return hugeBody(res, fault.bytes ?? 50_000_000, finish);
  if (fault?.kind === 'lose-response') return lose(ctx, res, finish);
  if (fault?.kind === 'malformed') {
    return answer(res, { status: 200, headers: { 'content-type': JSON_API }, body: Buffer.from(fault.body ?? MALFORMED_BODY) }, rate.headers, JSON_API, finish);
  }
  const shaped = fault?.kind === 'endless-pages' ? endless(reply, ctx) : fault?.kind === 'growing-pages' ? growing(reply, ctx)
    : fault?.kind === 'fat-pages' ? fatPages(reply, ctx, fault, pageNumber(ctx.query)) : reply;
  answer(res, shaped, headers, JSON_API, finish);
}

/**
 * The rate decision of a request: every endpoint's limit, and for a run list its own too (`run.mdx`: 30 a minute), whose
 * headers it then answers with (`index.mdx`, "Lower rate limits for some endpoints": the lower limit shows in
 * `x-ratelimit-limit`). A request refused by the first is not counted by the second.
 */
function takeRate(p: Pipeline, ctx: Context, key: string): RateDecision {
  const rate = p.limiter.take(key);
  if (!rate.allowed || !isRunList(ctx.method, ctx.path) || p.runListLimiter.limit() <= 0) return rate;
  const own = p.runListLimiter.take(key);
  return { allowed: own.allowed, headers: { ...rate.headers, ...own.headers } };
}

/** What a malformed fault answers by default: a document cut off in the middle, as a proxy that gave up would send it. */
const MALFORMED_BODY = '{"data":{"id":"pol-';

function pageNumber(query: URLSearchParams): number {
  const text = query.get('page[number]');
  return text !== null && /^\d+$/.test(text) ? Number(text) : 1;
}

/** A list answer whose next page always points one page further than the page asked for: a list that never ends. */
function endless(reply: Reply, ctx: Context): Reply {
  const body = reply.body as { links?: Record<string, string | null>; meta?: { pagination?: Record<string, number | null> } } | undefined;
  const pagination = body?.meta?.pagination;
  if (reply.status !== 200 || pagination === undefined || body?.links === undefined) return reply;
  const next = pageNumber(ctx.query) + 1;
  const self = new URL(body.links.self ?? `${ctx.origin}/api/v2${ctx.path}`);
  self.searchParams.set('page[number]', String(next));
  return {
    ...reply,
    body: { ...body, links: { ...body.links, next: self.href }, meta: { ...body.meta, pagination: { ...pagination, 'next-page': next } } },
  };
}

/** Temporary download URLs: no Authorization, no rate limit, logged with their own path. */
export async function handleBlob(p: Pipeline, ctx: Context, loggedPath: string, res: ServerResponse): Promise<void> {
  const reply = await route(p.blobs, ctx);
  answer(res, reply, {}, JSON_API, (status) => record(p, ctx, loggedPath, status));
}

/**
 * Policy set version upload links, like download URLs; a fault applies when its `path` matches the link's whole path
 * (`^/_archivist/`): `status`, `latency`, `drop` and `lose-response`.
 */
export async function handleUpload(p: Pipeline, ctx: Context, fullPath: string, res: ServerResponse): Promise<void> {
  const finish = (status: number | null): void => record(p, ctx, fullPath, status);
  const fault = p.faults.take({ method: ctx.method, path: fullPath, page: 1, pathOnly: true });
  if (fault?.kind === 'drop') return lose(ctx, res, finish);
  if (fault?.kind === 'status') {
    const status = fault.status ?? 503;
    ctx.req.resume();
    return answer(res, errorReply(status, [{ status: String(status), title: 'injected fault', detail: 'fault injected by the emulator' }]), fault.headers ?? {}, JSON_API, finish);
  }
  // An upload is a write: it waits, then does its work, whoever still listens.
  if (fault?.kind === 'latency') await delay(res, fault['latency-ms'] ?? 1000, false);
  const reply = await route(p.uploads, ctx);
  if (fault?.kind === 'lose-response') return lose(ctx, res, finish);
  answer(res, reply, {}, JSON_API, finish);
}

/** Control endpoints: same token, not rate limited, not logged. */
export async function handleControl(p: Pipeline, ctx: Context, res: ServerResponse): Promise<void> {
  const reply = sameToken(bearer(ctx.req), p.token) ? await route(p.control, ctx) : unauthorized();
  answer(res, reply, {}, 'application/json', () => undefined);
}

export async function route(router: Router, ctx: Context): Promise<Reply> {
  try {
    const match = router(ctx.method, ctx.path);
    if (match === null) return errorReply(404, [{ status: '404', title: 'not found' }]);
    if (match === 'method-not-allowed') return errorReply(405, [{ status: '405', title: 'method not allowed' }]);
    return await match.handler({ ...ctx, params: match.params });
  } catch (error) {
    if (error instanceof ReplyError) return errorReply(error.status, error.errors);
    return errorReply(500, [{ status: '500', title: 'internal error', detail: errorMessage(error) }]);
  }
}

export function answer(res: ServerResponse, reply: Reply, extra: Record<string, string>, jsonType: string, done: (status: number) => void): void {
  const headers: Record<string, string> = { ...extra, ...reply.headers };
  let payload: Buffer | undefined;
  if (Buffer.isBuffer(reply.body)) payload = reply.body;
  else if (reply.body !== undefined) {
    payload = Buffer.from(JSON.stringify(reply.body));
    headers['content-type'] ??= jsonType;
  }
  if (payload !== undefined) headers['content-length'] = String(payload.length);
  res.writeHead(reply.status, headers);
  res.end(payload);
  done(reply.status);
}

/** POST, PATCH and DELETE carry the JSON:API media type, DELETE too with no body: the service answers 415 otherwise. */
const MUTATING = new Set(['POST', 'PATCH', 'DELETE']);

function unsupportedMediaType(): Reply {
  return errorReply(415, [{ status: '415', title: 'unsupported media type', detail: `Content-Type must be ${JSON_API}` }]);
}

function unauthorized(): Reply {
  return errorReply(401, [{ status: '401', title: 'unauthorized', detail: 'a valid Authorization: Bearer token is required' }]);
}

function lose(ctx: Context, res: ServerResponse, done: (status: null) => void): void {
  res.destroy();
  ctx.req.socket.destroy();
  done(null);
}

function record(p: Pipeline, ctx: Context, path: string, status: number | null): void {
  const contentType = ctx.req.headers['content-type'] ?? null;
  p.log.add({ method: ctx.method, path, status, 'content-type': contentType, 'user-agent': ctx.req.headers['user-agent'] ?? null, at: new Date(ctx.now()).toISOString() });
  p.logger.debug({ method: ctx.method, path, status }, 'emulator request');
}

function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer (.+)$/i.exec(header.trim());
  return match?.[1] ?? null;
}

function sameToken(presented: string | null, token: string): boolean {
  if (presented === null) return false;
  const digest = (text: string): Buffer => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(token));
}

/**
 * Waits `ms`. A read (`endsEarly`) whose client goes away first ends then, false: nobody to answer, it is logged
 * unanswered at once. A write always waits, then does its work, as a server that got it does whoever still listens.
 */
function delay(res: ServerResponse, ms: number, endsEarly: boolean): Promise<boolean> {
  return new Promise((resolve) => {
    const gone = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      res.off('close', gone);
      resolve(true);
    }, ms).unref();
    if (endsEarly) res.once('close', gone);
  });
}
