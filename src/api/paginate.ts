import { field, int, primaryList, str } from './json-api.js';
import { readWith } from './responses.js';
import type { Transport } from './transport.js';

export interface Page {
  items: unknown[];
  document: unknown;
}

const PAGE_SIZE = 100;

/** Query string with brackets percent-encoded: `?page%5Bsize%5D=100`. */
export function queryString(params: ReadonlyArray<readonly [string, string]>): string {
  if (params.length === 0) return '';
  return `?${params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`;
}

/**
 * Every page of a list, 100 at a time, following `links.next` (or `meta.pagination.next-page`)
 * until it is null. Stops rather than loop if a server sends the same page twice.
 */
export async function listAll(
  transport: Transport,
  secret: string,
  signal: AbortSignal | undefined,
  path: string,
  params: ReadonlyArray<readonly [string, string]>,
): Promise<Page[]> {
  const pageUrl = (n: number): string =>
    transport.url(`${path}${queryString([...params, ['page[number]', String(n)], ['page[size]', String(PAGE_SIZE)]])}`);
  const pages: Page[] = [];
  const seen = new Set<string>();
  let next: string | null = pageUrl(1);
  while (next !== null && !seen.has(next)) {
    seen.add(next);
    const response = await transport.send({ method: 'GET', url: next }, signal);
    const page: Page = readWith(response, secret, (document) => ({ items: primaryList(document), document }));
    pages.push(page);
    next = nextUrl(page.document, next, pageUrl);
  }
  return pages;
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
