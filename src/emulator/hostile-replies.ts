/** Answers of a hostile server, for the faults that shape a reply instead of replacing it. */
import type { ServerResponse } from 'node:http';
import type { Reply } from './http.js';
import type { Context } from './router.js';
import type { FaultSpec } from './types.js';

/** The context the route sees: a `growing-pages` or `fat-pages` list always answers its first page's resources. */
export function faultContext(fault: FaultSpec | null, ctx: Context): Context {
  if (fault?.kind === 'duplicate-items') return { ...ctx, repeatItems: fault.items ?? 5 };
  if (fault?.kind !== 'growing-pages' && fault?.kind !== 'fat-pages') return ctx;
  const query = new URLSearchParams(ctx.query);
  query.set('page[number]', '1');
  return { ...ctx, query };
}

type ListBody = { links?: Record<string, string | null>; meta?: { pagination?: Record<string, number | null> } } | undefined;

/**
 * A list page that repeats the first page's resources, names the next page, and announces one page more than
 * it is at (`total-pages`, `total-count`): a server whose list grows as fast as it is read.
 */
export function growing(reply: Reply, ctx: Context): Reply {
  const body = reply.body as ListBody;
  const pagination = body?.meta?.pagination;
  if (reply.status !== 200 || pagination === undefined || body?.links === undefined) return reply;
  const asked = ctx.query.get('page[number]');
  const current = asked !== null && /^\d+$/.test(asked) ? Number(asked) : 1;
  const size = pagination['page-size'] ?? 20;
  const self = new URL(body.links.self ?? `${ctx.origin}/api/v2${ctx.path}`);
  self.searchParams.set('page[number]', String(current + 1));
  const grown = { ...pagination, 'current-page': current, 'next-page': current + 1, 'total-pages': current + 1, 'total-count': (current + 1) * size };
  return { ...reply, body: { ...body, links: { ...body.links, next: self.href }, meta: { ...body.meta, pagination: grown } } };
}

/** A 200 of `bytes` bytes (a JSON document whose one string is spaces), written in chunks as the client reads. */
export function hugeBody(res: ServerResponse, bytes: number, done: (status: number) => void): void {
  const head = Buffer.from('{"data":"');
  const tail = Buffer.from('"}');
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let left = Math.max(0, bytes - head.length - tail.length);
  res.writeHead(200, { 'content-type': 'application/vnd.api+json', 'content-length': String(head.length + left + tail.length) });
  res.write(head);
  // Logged once answered: a client that stops reading never lets it finish.
  done(200);
  const pump = (): void => {
    while (left > 0) {
      const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= part.length;
      if (!res.write(part)) return void res.once('drain', pump);
    }
    res.end(tail);
  };
  res.on('close', () => (left = 0));
  pump();
}

/**
 * A list that never ends, of fat resources: each page holds `items` (100) new resources made from the first one of the
 * real list (its id's prefix kept, a suffix of the page and index), each with its `attribute` (`description`) padded
 * to `attribute-bytes` (38,000) characters, and names the next page, announcing one page more than it is at. A policy
 * list of 3.8 MB pages, or runs with 38 kB messages, for as long as a client reads.
 */
export function fatPages(reply: Reply, ctx: Context, fault: FaultSpec, asked: number): Reply {
  const body = reply.body as (ListBody & { data?: unknown }) | undefined;
  const template = Array.isArray(body?.data) ? (body.data[0] as Record<string, unknown> | undefined) : undefined;
  if (reply.status !== 200 || template === undefined || body?.links === undefined) return reply;
  const size = fault.items ?? 100;
  const attribute = fault.attribute ?? 'description';
  const padding = 'x'.repeat(fault['attribute-bytes'] ?? 38_000);
  const prefix = String(template['id']).split('-')[0];
  const data = Array.from({ length: size }, (_, n) => {
    const suffix = `p${asked}n${n}`;
    const attributes = { ...(template['attributes'] as Record<string, unknown>), [attribute]: padding };
    if (typeof attributes['name'] === 'string') attributes['name'] = `${attributes['name']}-${suffix}`;
    return { ...template, id: `${prefix}-${suffix}`, attributes };
  });
  const self = new URL(body.links.self ?? `${ctx.origin}/api/v2${ctx.path}`);
  self.searchParams.set('page[number]', String(asked + 1));
  const pagination = { 'current-page': asked, 'next-page': asked + 1, 'prev-page': asked > 1 ? asked - 1 : null, 'page-size': size, 'total-pages': asked + 1, 'total-count': (asked + 1) * size };
  return { ...reply, body: { ...body, data, links: { ...body.links, next: self.href }, meta: { ...body.meta, pagination } } };
}
