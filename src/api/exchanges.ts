/**
 * The two exchanges both sides of the client (client.ts, policy-sets.ts) make the same way: one request answered by a
 * single document, and a DELETE, where a 404 is done.
 */
import type { Logger } from '../logger.js';
import type { HttpMethod } from './http-types.js';
import { readWith, successBody } from './responses.js';
import type { Transport } from './transport.js';

/** One request answered by a single-resource document, read by `read` (given the whole body). */
export async function sendOne<T>(
  transport: Transport, signal: AbortSignal | undefined, method: HttpMethod, path: string, json: unknown, read: (body: unknown) => T,
): Promise<T> {
  const response = await transport.send({ method, url: transport.url(path), json }, signal);
  return readWith(response, read);
}

/**
 * A DELETE answered 404 is done: what was asked for is true. That is the answer to a retry whose first answer was
 * lost, and to a resource someone already deleted by hand.
 */
export async function deleteDone(transport: Transport, signal: AbortSignal | undefined, logger: Logger, path: string, json?: unknown): Promise<void> {
  const response = await transport.send({ method: 'DELETE', url: transport.url(path), ...(json === undefined ? {} : { json }) }, signal);
  if (response.status === 404) {
    logger.info({ ...response.request, status: 404 }, 'api delete: already gone, counted as deleted');
    return;
  }
  successBody(response);
}
