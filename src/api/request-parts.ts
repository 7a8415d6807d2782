/**
 * The parts of an HTTP exchange the transport builds and reads: bodies, headers, the query as messages show it, the
 * back-off between tries, and the note an error gets when the tries are spent.
 */
import { Readable } from 'node:stream';
import { ApiError, NetworkError } from '../errors.js';
import type { Backoff } from '../http/retry.js';
import { decode } from '../redact.js';
import type { HttpRequest, StreamedBody } from './http-types.js';

export function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/** A query string as people read it in messages and logs: `?page[number]=1`, not `?page%5Bnumber%5D=1`. */
export function readableQuery(search: string): string {
  return decode(search);
}

/** A body sent whole. */
export function requestBody(req: HttpRequest): Uint8Array | string | undefined {
  if (req.bytes !== undefined) return 'chunks' in req.bytes ? undefined : req.bytes;
  return req.json === undefined ? undefined : JSON.stringify(req.json);
}

/** One try of a streamed body, as a stream, and what its chunks threw, if they did. */
export function watched(body: StreamedBody): { stream: Readable; failed?: { error: unknown } } {
  const state: { failed?: { error: unknown } } = {};
  async function* chunks(): AsyncIterable<Uint8Array> {
    try {
      yield* body.chunks();
    } catch (error) {
      state.failed = { error };
      throw error;
    }
  }
  return Object.assign(state, { stream: Readable.from(chunks(), { objectMode: false }) });
}

/** The same error, its message ending with `note`. */
export function withNote(error: ApiError | NetworkError, note: string): ApiError | NetworkError {
  const message = `${error.message}; ${note}`;
  return error instanceof ApiError
    ? new ApiError(message, error.status, error.detail, error.request, { cause: error.cause, pointers: error.pointers })
    : new NetworkError(message, error.request, { cause: error.cause });
}

/** The API's back-off between tries: from 200 ms, doubling up to 10 s, half of it random (http/retry.ts). */
export const API_BACKOFF: Backoff = { initialMs: 200, maxMs: 10_000, jitter: 'half' };

export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
