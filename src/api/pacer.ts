import type { Clock } from './clock.js';

/** Rate-limit headers of one response, already parsed. */
export interface RateLimitHeaders {
  limit: number | null;
  remaining: number | null;
  /** Seconds until the server's window ends. */
  resetSeconds: number | null;
}

/** Limit assumed until the first response says otherwise (docs/api-behaviour.md, Rate limits: 30 per second). */
const ASSUMED_LIMIT = 30;
/** Margin past the server's window end before sending again. */
const WINDOW_MARGIN_MS = 5;

/**
 * Spaces request starts evenly at the server's rate limit instead of bursting, and holds every
 * start back while the server's window is exhausted or after a 429. One pacer per client.
 */
export class Pacer {
  private limit: number;
  private lastSlot = -Infinity;
  private pausedUntil = -Infinity;
  private readonly waiters: Array<() => void> = [];
  private pumping = false;

  constructor(private readonly clock: Clock, private readonly configured: 'auto' | number) {
    this.limit = configured === 'auto' ? ASSUMED_LIMIT : configured;
  }

  get requestsPerSecond(): number {
    return this.limit;
  }

  /** Waits for the next start slot (first come, first served); resolves with the milliseconds waited. */
  acquire(): Promise<number> {
    const enqueued = this.clock.now();
    const released = new Promise<void>((resolve) => this.waiters.push(resolve));
    if (!this.pumping) void this.pump();
    return released.then(() => this.clock.now() - enqueued);
  }

  /**
   * Learns from a response: follows the limit in auto mode (a server that announces none is not
   * paced, 429s still are), waits out an exhausted window.
   */
  observe(headers: RateLimitHeaders): void {
    if (this.configured === 'auto') this.limit = headers.limit ?? 0;
    if (headers.remaining !== null && headers.remaining <= 0 && headers.resetSeconds !== null) {
      this.pauseFor(headers.resetSeconds * 1000 + WINDOW_MARGIN_MS);
    }
  }

  /** Holds every start back for `ms` from now. */
  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /**
   * The whole limit: starts are spaced evenly, never bursted, and a response saying the window is spent
   * (remaining 0) holds every start until the window ends, which absorbs the jitter at window edges.
   * Measured: 99% of the limit without 429s (bench/api-rate.ts).
   */
  private spacing(): number {
    return this.limit > 0 ? 1000 / this.limit : 0;
  }

  /** Releases waiters one at a time, each at least one spacing after the previous. */
  private async pump(): Promise<void> {
    this.pumping = true;
    while (this.waiters.length > 0) {
      const now = this.clock.now();
      const target = Math.max(this.lastSlot + this.spacing(), this.pausedUntil);
      if (target > now) {
        await this.clock.sleep(target - now);
        continue;
      }
      // A timer that fired a little late keeps the schedule; a long stall restarts it, never a burst.
      this.lastSlot = now - target <= this.spacing() / 4 ? target : now;
      this.waiters.shift()?.();
    }
    this.pumping = false;
  }
}
