import { ApiError } from '../errors.js';
import type { HttpResponse } from './http-types.js';

/**
 * A redirect of a download from https to plain http would send the code, and its temporary URL, in clear: an
 * ApiError naming the request, or null for any other redirect.
 */
export function downgradeError(response: HttpResponse, from: string, to: URL): ApiError | null {
  if (new URL(from).protocol !== 'https:' || to.protocol === 'https:') return null;
  const { method, path } = response.request;
  const reason = `redirects from https to ${to.protocol.replace(/:$/, '')} (${to.host}); refused, the download would travel in clear`;
  return new ApiError(`${method} ${path} failed: ${reason}`, response.status, reason, response.request);
}
