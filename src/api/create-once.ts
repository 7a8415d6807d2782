import { ApiError, NetworkError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { HttpRequest, HttpResponse, Transport } from './transport.js';

export interface CreateOnceOptions<T> {
  transport: Transport;
  /** Ends the create, and its look-ups and back-offs, once aborted. */
  signal?: AbortSignal;
  logger: Logger;
  maxRetries: number;
  request: HttpRequest;
  read: (response: HttpResponse) => T;
  /** Looks the resource up by its exact name; null when it does not exist. */
  find: () => Promise<T | null>;
}

/**
 * A create is not idempotent: when its answer is lost (a 5xx, or the connection failed after the
 * request went out) the write may still have happened. Look for the resource first and return it
 * if it is there; only otherwise send the create again.
 */
export async function createOnce<T>(options: CreateOnceOptions<T>): Promise<T> {
  const { transport, logger, maxRetries, request } = options;
  for (let attempt = 1; ; attempt += 1) {
    let lost: ApiError | NetworkError;
    try {
      const response = await transport.send({ ...request, retry: 'unsent-only' }, options.signal);
      return options.read(response);
    } catch (error) {
      const unanswered = error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
      if (!unanswered || attempt > maxRetries) throw error;
      lost = error;
    }
    const existing = await options.find();
    if (existing !== null) {
      logger.warn({ ...lost.request, attempt }, 'api create answer was lost but the resource exists; using it');
      return existing;
    }
    await transport.backOff(lost.request, attempt, { error: lost.message }, options.signal);
  }
}
