import { ApiError, NetworkError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { HttpRequest, HttpResponse, Transport } from './transport.js';

export interface CreateOnceOptions<T> {
  transport: Transport;
  /** Ends the create, and its look-ups and back-offs, once aborted. */
  signal?: AbortSignal;
  logger: Logger;
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
  const { transport, logger, request } = options;
  let failingSince: number | null = null;
  for (let attempt = 1; ; attempt += 1) {
    let lost: ApiError | NetworkError;
    try {
      const response = await transport.send({ ...request, retry: 'unsent-only' }, options.signal);
      return options.read(response);
    } catch (error) {
      const unanswered = error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
      if (!unanswered) throw error;
      lost = error;
    }
    failingSince ??= transport.now();
    const existing = await options.find();
    if (existing !== null) {
      logger.warn({ ...lost.request, attempt }, 'api create answer was lost but the resource exists; using it');
      return existing;
    }
    // The same budget as any retried request: a create is tried again only after it was looked for.
    const delayMs = transport.retryDelay(attempt, failingSince);
    if (delayMs === null) throw withNote(lost, transport.retriesSpent(attempt - 1, failingSince));
    await transport.backOff(lost.request, attempt, { error: lost.message }, options.signal, delayMs);
  }
}

/** The same error, its message ending with `note`. */
function withNote(error: ApiError | NetworkError, note: string): ApiError | NetworkError {
  const message = `${error.message}; ${note}`;
  return error instanceof ApiError
    ? new ApiError(message, error.status, error.detail, error.request, { cause: error.cause })
    : new NetworkError(message, error.request, { cause: error.cause });
}
