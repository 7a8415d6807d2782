import { ApiError } from '../errors.js';
import { field, int, primaryList, str } from './json-api.js';
import { readWith } from './responses.js';
import type { HttpResponse } from './http-types.js';
import type { Transport } from './transport.js';
import { count } from '../plural.js';

export interface Page<T> {
  /** The page's resources, parsed; a resource an earlier page already held is left out. */
  items: T[];
  /** The page's `meta` (its pagination, a pool list's `status-counts`): the rest of its document is dropped once read. */
  meta: unknown;
}

const PAGE_SIZE = 100;
/** The most pages any list is followed for (a million resources), whatever the server says. */
export const MAX_PAGES = 10_000;
/**
 * The most bytes of answers one list may take, whatever the server says: 64 MiB, some 80,000 policies of the
 * service's size, while the items a list keeps (a policy keeps its description) stay well inside the pod's 320 MiB.
 * A list past it fails naming the list and the limit, before the process nears its memory limit.
 */
export const MAX_LIST_BYTES = 64 * 1024 * 1024;

/** A list's bounds: pages (MAX_PAGES) and bytes of answers (MAX_LIST_BYTES). */
export interface ListBudget {
  maxBytes?: number;
}
/** Pages a list may take beyond what its largest `total-count` allows: room for resources created while it is read. */
const SLACK_PAGES = 2;

/** Query string with brackets percent-encoded: `?page%5Bsize%5D=100`. */
export function queryString(params: ReadonlyArray<readonly [string, string]>): string {
  if (params.length === 0) return '';
  return `?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

/** What a list is read through: a transport, or a view of one that counts its requests (evidence.ts's budget). */
export type ListTransport = Pick<Transport, 'url' | 'send' | 'logger'>;

/**
 * Every page of a list, 100 at a time, following `links.next` (or `meta.pagination.next-page`) until it is null.
 * Each resource is parsed with `parse` (given its page's document too, for `included`) as it comes, a malformed one
 * failing with an error naming its request. A resource whose id an earlier page already held is dropped: offset pagination repeats resources when others are created while
 * the list is read. A list that does not end (see `unendingList`) fails with an ApiError saying why, never loops.
 * `enough`: asked after each page (with the items read so far); true stops the list there.
 * Pages are parsed and dropped: the list keeps each page's items and `meta`, never its document, and `included` is
 * resolved within its page (`parse` gets the page's document). A list whose answers add up to more than
 * `budget.maxBytes` (MAX_LIST_BYTES) fails with an ApiError naming the list and the limit, the page past it unparsed.
 */
export async function listAll<T>(
  transport: ListTransport,
  signal: AbortSignal | undefined,
  path: string,
  params: ReadonlyArray<readonly [string, string]>,
  parse: (resource: unknown, document: unknown) => T,
  enough: (page: Page<T>) => boolean = () => false,
  budget: ListBudget = {},
): Promise<Array<Page<T>>> {
  const maxBytes = budget.maxBytes ?? MAX_LIST_BYTES;
  const pageUrl = (n: number): string =>
    transport.url(`${path}${queryString([...params, ['page[number]', String(n)], ['page[size]', String(PAGE_SIZE)]])}`);
  const pages: Array<Page<T>> = [];
  const listing = newListing();
  const ids = new Set<string>();
  let repeated = 0;
  let bytes = 0;
  let url = pageUrl(1);
  for (;;) {
    listing.urls.add(url);
    const response = await transport.send({ method: 'GET', url }, signal);
    bytes += Buffer.byteLength(response.text);
    if (bytes > maxBytes) throw tooLarge(response, path, { pages: pages.length + 1, bytes, maxBytes });
    const { page, size, fresh, document } = readWith(response, (document) => {
      const resources = primaryList(document);
      const fresh = resources.filter((resource) => {
        const id = str(field(resource, 'id'));
        if (id === null) return true;
        if (ids.has(id)) return (repeated += 1), false;
        ids.add(id);
        return true;
      });
      const meta = field(document, 'meta');
      return { page: { items: fresh.map((resource) => parse(resource, document)), meta }, size: resources.length, fresh: fresh.length, document };
    });
    pages.push(page);
    const next = nextUrl(document, url, pageUrl);
    if (next === null || enough(page)) break;
    const problem = unendingList(listing, { size, fresh, pagination: field(page.meta, 'pagination'), next });
    if (problem !== null) {
      const { method } = response.request;
      const reason = `the list does not end: ${problem}; stopped after ${count(pages.length, 'page')}`;
      throw new ApiError(`${method} ${response.request.path} failed: ${reason}`, response.status, reason, response.request);
    }
    url = next;
  }
  if (repeated > 0) {
    transport.logger.warn({ method: 'GET', path, repeated }, 'api list repeated resources (created while it was read); each is counted once');
  }
  return pages;
}

/** The error of a list whose answers are more than its budget of bytes: it names the list and the limit. */
function tooLarge(response: HttpResponse, path: string, seen: { pages: number; bytes: number; maxBytes: number }): ApiError {
  const mib = (n: number) => `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  const reason = `the list ${path} is larger than the ${mib(seen.maxBytes)} of answers a list may take (${mib(seen.bytes)} in ${count(seen.pages, 'page')}); `
    + 'it is not read further';
  return new ApiError(`${response.request.method} ${response.request.path} failed: ${reason}`, response.status, reason, response.request);
}

/** What a listing has seen so far. */
export interface Listing {
  urls: Set<string>;
  /** `current-page` numbers answered. */
  numbers: Set<number>;
  pages: number;
  /** The page size, from the first page: its `page-size`, else how many resources it held. */
  pageSize: number | null;
  /** The largest `total-count` any page announced. */
  totalCount: number | null;
}

export function newListing(): Listing {
  return { urls: new Set(), numbers: new Set(), pages: 0, pageSize: null, totalCount: null };
}

/**
 * Records one page (its resource count, its `meta.pagination`, the next URL it names) and says why the list should
 * stop although the page names a next one, or null to go on. Whichever comes first: a next page already read, an
 * empty page, a page after the first that adds no resource not already listed (`fresh`: those it added; a server
 * whose counts grow as fast as it is read passes every other test), a page at or past `total-pages`, more pages than
 * the largest `total-count` allows, MAX_PAGES.
 */
export function unendingList(listing: Listing, page: { size: number; fresh?: number; pagination: unknown; next: string }): string | null {
  listing.pages += 1;
  const current = positive(field(page.pagination, 'current-page'));
  const totalPages = positive(field(page.pagination, 'total-pages'));
  const totalCount = nonNegative(field(page.pagination, 'total-count'));
  const label = current === null ? `page ${listing.pages}` : `page ${current}`;
  listing.pageSize ??= positive(field(page.pagination, 'page-size')) ?? (page.size > 0 ? page.size : null);
  if (totalCount !== null) listing.totalCount = Math.max(listing.totalCount ?? 0, totalCount);
  if (current !== null && listing.numbers.has(current)) return `${label} was answered twice`;
  if (current !== null) listing.numbers.add(current);
  if (listing.urls.has(page.next)) return `${label} points back to a page already read`;
  if (page.size === 0) return `${label} is empty but points to another`;
  if (listing.pages > 1 && page.fresh === 0) return `${label} adds no resource that an earlier page did not hold, but points to another`;
  if (current !== null && totalPages !== null && current >= totalPages) return `${label} of ${totalPages} (total-pages) points to another`;
  if (listing.totalCount !== null && listing.pageSize !== null) {
    const allowed = Math.ceil(listing.totalCount / listing.pageSize) + SLACK_PAGES;
    if (listing.pages >= allowed) return `${listing.pages} pages read, more than the ${listing.totalCount} resources it announces (total-count) can fill`;
  }
  if (listing.pages >= MAX_PAGES) return `${listing.pages} pages read, the most any list is followed for`;
  return null;
}

function nextUrl(document: unknown, current: string, pageUrl: (n: number) => string): string | null {
  const link = str(field(field(document, 'links'), 'next'));
  if (link !== null) {
    const url = new URL(link, current);
    // Only ever follow a link to the same server: the token goes with it.
    if (url.origin === new URL(current).origin) return `${url.origin}${url.pathname}${url.search.replaceAll('[', '%5B').replaceAll(']', '%5D')}`;
  }
  const nextPage = int(field(field(field(document, 'meta'), 'pagination'), 'next-page'), 0);
  return nextPage > 0 ? pageUrl(nextPage) : null;
}

function positive(value: unknown): number | null {
  const n = int(value, 0);
  return Number.isInteger(n) && n >= 1 ? n : null;
}

function nonNegative(value: unknown): number | null {
  const n = int(value, -1);
  return Number.isInteger(n) && n >= 0 ? n : null;
}
