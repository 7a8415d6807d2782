/** Page selection and the pagination envelope (links and meta.pagination). */
import { ReplyError } from './http.js';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export interface Page<T> {
  items: T[];
  links: Record<string, string | null>;
  pagination: Record<string, number | null>;
}

/**
 * `listUrl` is the absolute URL of the list without query; `query` is the request's query; a `page[size]` over
 * MAX_PAGE_SIZE is refused (422, naming the parameter). A page
 * past the end is empty, with `current-page` as asked. `repeat`: the page starts with that many resources
 * of the page before it, as offset pagination does when resources were created while a list was read.
 */
export function paginate<T>(all: readonly T[], query: URLSearchParams, listUrl: string, repeat = 0): Page<T> {
  const asked = positiveInt(query.get('page[size]'));
  // NOTES: a larger one "may be refused with 422": the worse case, so that a client asking for more fails here too.
  if (asked !== undefined && asked > MAX_PAGE_SIZE) {
    throw new ReplyError(422, [{ status: '422', title: 'invalid parameter', detail: `page[size] must be at most ${MAX_PAGE_SIZE}`, source: { parameter: 'page[size]' } }]);
  }
  const size = asked ?? DEFAULT_PAGE_SIZE;
  const number = positiveInt(query.get('page[number]')) ?? 1;
  const totalPages = Math.max(1, Math.ceil(all.length / size));
  const prev = number > 1 ? Math.min(number - 1, totalPages) : null;
  const next = number < totalPages ? number + 1 : null;
  const link = (page: number): string => pageUrl(listUrl, query, page, size);
  return {
    items: all.slice(Math.max(0, (number - 1) * size - repeat), number * size),
    links: {
      self: link(number),
      first: link(1),
      prev: prev === null ? null : link(prev),
      next: next === null ? null : link(next),
      last: link(totalPages),
    },
    pagination: {
      'current-page': number,
      'page-size': size,
      'prev-page': prev,
      'next-page': next,
      'total-pages': totalPages,
      'total-count': all.length,
    },
  };
}

function positiveInt(text: string | null): number | undefined {
  if (text === null || !/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= 1 ? value : undefined;
}

/** Page parameters first, then the other parameters as sent, brackets percent-encoded. */
function pageUrl(listUrl: string, query: URLSearchParams, page: number, size: number): string {
  const parts = [`page%5Bnumber%5D=${page}`, `page%5Bsize%5D=${size}`];
  for (const [key, value] of query) {
    if (key === 'page[number]' || key === 'page[size]') continue;
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(value)}`);
  }
  return `${listUrl}?${parts.join('&')}`;
}
