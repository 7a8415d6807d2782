/**
 * Redirects answering API calls. The vendor's clients follow them; so does this one, for reads only and only within
 * the API's origin, so the token never goes anywhere else. The download redirect has its own rules (download.ts).
 */
import { ApiError } from '../errors.js';
import type { HttpRequest, HttpResponse } from './http-types.js';

/** Redirects followed for one GET, at most (the vendor's v2 client follows up to 5). */
export const MAX_API_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 307, 308]);

/**
 * The URL to GET next when `response` redirects an API read within `base`'s origin; null when it is no redirect (or
 * the request handles its own). Throws, naming the Location, for a redirect of a write (never repeated), to another
 * origin (or from https to http: the token is never sent there), or past MAX_API_REDIRECTS.
 */
export function redirectTarget(req: HttpRequest, response: HttpResponse, base: URL, hops: number): string | null {
  const location = response.headers.location;
  if (req.redirects === 'return' || !REDIRECTS.has(response.status) || location === undefined) return null;
  // A request named otherwise (an upload link: a credential) is named so here too, and so is where it was sent on to.
  if (req.shown !== undefined) {
    throw redirectError(req, response, `was answered ${response.status}, a redirect to another URL (not shown: the link is a credential); a write is never repeated to another URL`);
  }
  const from = shown(new URL(req.url));
  let target: URL;
  try {
    target = new URL(location, req.url);
  } catch {
    throw redirectError(req, response, `answered ${response.status} with a Location that is not a URL`);
  }
  const to = shown(target);
  if (req.method !== 'GET') {
    throw redirectError(req, response, `was answered ${response.status}, a redirect from ${from} to ${to}; a write is never repeated to another URL: fix --api-url (or API_BASE_URL, api.url) to the URL the API answers at`);
  }
  if (target.origin !== base.origin) {
    throw redirectError(req, response, `was redirected (${response.status}) to ${to}, outside ${base.origin}; the token is never sent to another origin: fix --api-url (or API_BASE_URL, api.url) to the URL the API answers at`);
  }
  if (hops >= MAX_API_REDIRECTS) throw redirectError(req, response, `was redirected more than ${MAX_API_REDIRECTS} times (last to ${to})`);
  return target.href;
}

/** A URL in a message: origin and path, never credentials or a query that may carry a signature. */
function shown(url: URL): string {
  return `${url.origin}${url.pathname}${url.search === '' ? '' : '?…'}`;
}

function redirectError(req: HttpRequest, response: HttpResponse, what: string): ApiError {
  return new ApiError(`${response.request.method} ${response.request.path} ${what}`, response.status, null, response.request);
}
