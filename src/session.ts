import type { PolicyApi } from './api/types.js';

/**
 * What one pass shares with every step of it: the signal that ends it (its timeout, the end of a shutdown's grace
 * time), the API bound to that signal (every request, queued, paced, backing off or on the wire, ends with it), and
 * the clock. `runPass` opens one; the daemon opens it itself to learn afterwards whether the pass reached the API.
 */
export interface PassSession {
  readonly signal: AbortSignal | undefined;
  readonly api: PolicyApi;
  now(): number;
  /** Whether the pass's requests could use the API (for /readyz); null before any request. */
  apiReached(): boolean | null;
}

export function openPassSession(api: PolicyApi, signal: AbortSignal | undefined, now: () => number = Date.now): PassSession {
  const bound = signal === undefined ? api : api.withSignal(signal);
  return { signal, api: bound, now, apiReached: () => (signal === undefined ? null : api.reached(signal)) };
}
