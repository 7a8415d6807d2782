/** Time as the client sees it; passed in so tests and callers can control it. */
export interface Clock {
  /** Milliseconds, monotonic enough for pacing. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** A number in [0, 1), for jitter. */
  random(): number;
}

export function systemClock(): Clock {
  return {
    now: () => performance.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))),
    random: () => Math.random(),
  };
}
