/**
 * How long every start waits after a 429. The announced reset, when it is a real one; but the hosted service has been
 * seen to announce `x-ratelimit-reset: 0.0` even on a 429, and waiting that long spends the tries in a few seconds
 * while another client of the same user holds the budget. So a reset under MIN_WAIT_MS waits at least that, doubling
 * with each consecutive 429 up to MAX_WAIT_MS, plus jitter.
 */

import { backoffDelay } from '../http/retry.js';

/** The least wait after a 429 whose reset is smaller (the vendor's older client waits at least 100 ms too). */
export const MIN_WAIT_MS = 100;
/** The most a wait grows to over consecutive 429s with tiny resets: the length of the server's window. */
export const MAX_WAIT_MS = 1000;
/** Margin past the moment the server's window frees a slot before sending again. */
export const RESET_MARGIN_MS = 5;

/**
 * `consecutive`: 429s in a row, this one included (1 for the first). `random` in [0, 1). A missing reset waits 1 s.
 */
export function rateLimitWaitMs(resetSeconds: number | null, consecutive: number, random: number): number {
  const resetMs = (resetSeconds ?? 1) * 1000;
  if (resetMs >= MIN_WAIT_MS) return resetMs + RESET_MARGIN_MS + random * 50;
  // The floor doubles as the back-off does, plus up to half of it again.
  const floor = backoffDelay(consecutive, { initialMs: MIN_WAIT_MS, maxMs: MAX_WAIT_MS, jitter: 'none' }, random);
  return floor + random * (floor / 2);
}
