import { systemClock } from './api/clock.js';
import type { PolicyApi } from './api/types.js';

/** A pass's clock: its time (the planner's `now`, elapsed times) and its waits, which end with the signal they are given. */
export interface SessionClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * What one pass shares with every step of it: the signal that ends it (its timeout, the end of a shutdown's grace
 * time), the API bound to that signal (every request, queued, paced, backing off or on the wire, ends with it), and
 * the clock (a policy set version's poll waits on it). `runPass` opens one; the daemon opens it itself to learn
 * afterwards whether the pass reached the API.
 */
export interface PassSession extends SessionClock {
  readonly signal: AbortSignal | undefined;
  readonly api: PolicyApi;
  /** Whether the pass's requests could use the API (for /readyz); null before any request. */
  apiReached(): boolean | null;
}

export function openPassSession(
  api: PolicyApi, signal: AbortSignal | undefined, now: () => number = Date.now, sleep: SessionClock['sleep'] = systemClock().sleep,
): PassSession {
  const bound = signal === undefined ? api : api.withSignal(signal);
  return { signal, api: bound, now, sleep, apiReached: () => (signal === undefined ? null : api.reached(signal)) };
}
