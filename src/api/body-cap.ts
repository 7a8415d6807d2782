import { ApiError, BodyTooLargeError, type FailedRequest } from '../errors.js';
import { MAX_CODE_BYTES } from '../model.js';

/** The largest JSON body read: a page of 100 resources is about 100 KB. */
export const MAX_JSON_BODY_BYTES = 4 * 1024 * 1024;
/** The largest download read: the policy code limit plus room for a server that counts a little differently. */
export const MAX_DOWNLOAD_BYTES = MAX_CODE_BYTES + 1024 * 1024;

/** The body's chunks, failing with BodyTooLargeError as soon as they pass `limit` bytes (or its length says they will). */
export async function* capped(body: AsyncIterable<Uint8Array>, limit: number, contentLength: string | undefined): AsyncIterable<Uint8Array> {
  if (contentLength !== undefined && Number(contentLength) > limit) throw new BodyTooLargeError(limit);
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) throw new BodyTooLargeError(limit);
    yield chunk;
  }
}

/** The body as UTF-8 text, read only up to `limit` bytes. */
export async function readCapped(body: AsyncIterable<Uint8Array>, limit: number, contentLength: string | undefined): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of capped(body, limit, contentLength)) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

export function tooLargeError(error: BodyTooLargeError, status: number, request: FailedRequest): ApiError {
  const reason = `${error.message}, more than any answer of the API should be; not read further`;
  return new ApiError(`${request.method} ${request.path} failed: ${reason}`, status, reason, request, { cause: error });
}
