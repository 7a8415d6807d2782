import { ApiError, errorMessage } from '../errors.js';
import { errorDetail, errorPointers } from './json-api.js';
import type { HttpResponse } from './http-types.js';

export function isSuccess(response: HttpResponse): boolean {
  return response.status >= 200 && response.status < 300;
}

/**
 * `PATCH /policies/pol-x failed: 422 invalid attribute: Name has already been taken`. The transport has already
 * redacted the token from the request's path and from the text of an answer that is not a success.
 */
export function apiError(response: HttpResponse): ApiError {
  const { method, path } = response.request;
  const document = parseJson(response.text);
  const detail = errorDetail(document) ?? plainText(response.text);
  const hint = response.hint === undefined ? '' : `; ${response.hint}`;
  const message = `${method} ${path} failed: ${response.status}${detail === null ? '' : ` ${detail}`}${hint}`;
  return new ApiError(message, response.status, detail, response.request, { pointers: errorPointers(document) });
}

/** The JSON body of a successful response; throws ApiError for any other status or an unreadable body. */
export function successBody(response: HttpResponse): unknown {
  if (!isSuccess(response)) throw apiError(response);
  return parseJson(response.text);
}

/** Runs a reader over a successful body, turning a malformed document into an ApiError naming the request. */
export function readWith<T>(response: HttpResponse, read: (body: unknown) => T): T {
  const body = successBody(response);
  try {
    return read(body);
  } catch (error) {
    const { method, path } = response.request;
    const reason = errorMessage(error);
    const message = `${method} ${path} failed: ${response.status} but the response is unusable: ${reason}`;
    throw new ApiError(message, response.status, reason, response.request, { cause: error });
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

function plainText(text: string): string | null {
  const line = text.trim().split('\n')[0]?.slice(0, 200) ?? '';
  return line === '' || line.startsWith('{') ? null : line;
}
