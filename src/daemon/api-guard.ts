import type { PolicyApi } from '../api/types.js';
import { ApiError, NetworkError } from '../errors.js';

export interface GuardedApi {
  api: PolicyApi;
  /** false when any call of the pass could not reach the API, true when calls got answers, null before any call. */
  reached(): boolean | null;
}

/**
 * Wraps the API for one pass: refuses new calls once `signal` aborts (the pass timed out), so an abandoned pass
 * ends at its next call, and records whether the API could be reached (for /readyz).
 */
export function guardApi(api: PolicyApi, signal: AbortSignal): GuardedApi {
  let reached: boolean | null = null;
  const guarded = new Proxy(api, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        signal.throwIfAborted();
        try {
          const result: unknown = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          reached ??= true;
          return result;
        } catch (error) {
          // Sticky: one call that could not reach the API (after the client's retries) marks the whole pass.
          if (unreachable(error)) reached = false;
          else reached ??= true;
          throw error;
        }
      };
    },
  });
  return { api: guarded, reached: () => reached };
}

/** No answer, a server error after retries, or a refused token: the API is not usable. */
function unreachable(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  return error instanceof ApiError && (error.status >= 500 || error.status === 401 || error.status === 403);
}
