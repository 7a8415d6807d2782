import type { Clock } from '../../src/api/clock.js';

/**
 * A clock whose time moves only when the test says so, for code that takes a `Clock`.
 * `sleep` registers a timer; `runUntilIdle` lets pending work run, then jumps to the next timer,
 * until nothing is left. With `autoAdvance`, a sleep moves the time forward at once instead: right
 * when one sleeper at a time drives the clock (a pacer in front of a real server), and no test
 * waits for wall time either way.
 */
export class VirtualClock implements Clock {
  private time = 0;
  private timers: Array<{ at: number; seq: number; resolve: () => void }> = [];
  private seq = 0;

  constructor(private readonly options: { autoAdvance?: boolean } = {}) {}

  now(): number {
    return this.time;
  }

  random(): number {
    return 0.5;
  }

  /** As the Clock's: rejects with the signal's reason once it aborts, and the timer is dropped. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    const at = this.time + Math.max(0, ms);
    if (this.options.autoAdvance === true) {
      this.time = at;
      return new Promise((resolve) => setImmediate(resolve));
    }
    return new Promise((resolve, reject) => {
      const timer = { at, seq: (this.seq += 1), resolve: () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      } };
      const onAbort = () => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Timers waiting to fire. */
  pending(): number {
    return this.timers.length;
  }

  /** Sets the time forward by `ms`, firing the timers due by then in order. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    await settle();
    for (let next = this.nextTimer(); next !== undefined && next.at <= until; next = this.nextTimer()) {
      this.fire(next);
      await settle();
    }
    this.time = until;
  }

  /** Runs until no timer is pending, jumping the time from one timer to the next. */
  async runUntilIdle(): Promise<void> {
    await settle();
    for (let next = this.nextTimer(); next !== undefined; next = this.nextTimer()) {
      this.fire(next);
      await settle();
    }
  }

  private nextTimer(): { at: number; seq: number; resolve: () => void } | undefined {
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
  }

  private fire(timer: { at: number; seq: number; resolve: () => void }): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.time = Math.max(this.time, timer.at);
    timer.resolve();
  }
}

/** Lets every promise continuation that is ready run (no I/O involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i += 1) await new Promise((resolve) => setImmediate(resolve));
}
