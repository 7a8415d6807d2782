import type { Clock } from './clock.js';
import type { RateLimitHeaders } from './rate-limit-headers.js';
import { rateLimitWaitMs } from './rate-limit-wait.js';

export type { RateLimitHeaders } from './rate-limit-headers.js';

/** Limit assumed until the first response says otherwise (docs/api-behaviour.md, Rate limits: 30 per window). */
const ASSUMED_LIMIT = 30;
/** The server counts one second (most endpoints); the client counts a little more, for the jitter between its clock and the server's. */
const SECOND_MS = 1000;
const WINDOW_GUARD_MS = 25;

/** How a pacer counts: the length of the server's window, and whether starts may come at once while the window has room. */
export interface PacerWindow {
  /** @default 1000 (a limit per second) */
  windowMs?: number;
  /**
   * true: no even spacing, only the cap of what the window allows (less what others spend), so that a few requests go
   * at once; a long window (the run lists' minute) would otherwise space even the first ones seconds apart.
   * @default false
   */
  burst?: boolean;
}
/** Share of the budget the spacing aims for: where it starts, the most it grows to, the least it shrinks to. */
const START_SHARE = 0.95;
const MAX_SHARE = 0.97;
const MIN_SHARE = 0.3;
/** Additive increase: the share grows by this much for every budget's worth of answers that were not 429. */
const SHARE_STEP = 0.02;
/** Multiplicative decrease on a 429. */
const SHARE_CUT = 0.9;
/** Weight of the newest sample in the estimate of what other clients of the same user spend. */
const OTHERS_WEIGHT = 0.2;
/** How far behind its schedule the pacer may fall and still catch up. */
const MAX_CATCH_UP_MS = 250;
/** Margin past the moment the server's window frees a slot before sending again. */
const RESET_MARGIN_MS = 5;

/** One start slot: how long it waited, and when the request started (to match its answer with). */
export interface Slot {
  waitedMs: number;
  startedAt: number;
}

/**
 * Holds request starts to what the server's rate limit leaves this client. The limit counts every
 * client of the same user, so the pacer learns rather than assumes:
 * - it follows `x-ratelimit-limit` (a configured number is a ceiling on it, never a promise);
 * - from `x-ratelimit-remaining` it estimates what other clients spend, and paces at a share of the
 *   rest, spacing starts evenly and never starting more in any second than the rest allows;
 * - the share grows additively while answers come back, and shrinks multiplicatively on a 429;
 * - a window reported full, or a 429, holds every start until the server says a slot frees.
 * One pacer per client.
 */
export class Pacer {
  /** Announced by the server; null before any answer, 0 when the server announces none. */
  private announced: number | null = null;
  private share = START_SHARE;
  /** Requests per window that other clients of the same user spend, as estimated. */
  private others = 0;
  /** Start times of this client's requests that may still count on the server, oldest first. */
  private readonly starts: number[] = [];
  private lastSlot = -Infinity;
  private pausedUntil = -Infinity;
  private readonly waiters: Array<(startedAt: number) => void> = [];
  private pumping = false;
  /** Ends the pump's wait once no one waits any more (every waiter gave up), so no timer outlives them. */
  private wake: AbortController | null = null;
  /** 429s in a row, with no other answer between them. */
  private consecutive429 = 0;

  private readonly windowMs: number;
  private readonly burst: boolean;
  /**
   * A bursting pacer's view of the server's window: the starts its last answer left (less those started after it),
   * and when that window frees; null before any answer. Until the first answer, one start a second: the window may
   * already be spent by another client of the same user, which no answer has said yet.
   */
  private serverLeft: { left: number; resetAt: number } | null = null;

  /** `configured`: a ceiling on the announced limit, per window; `window`: a window other than a second (the run lists' minute). */
  constructor(private readonly clock: Clock, private readonly configured: 'auto' | number, window: PacerWindow = {}) {
    this.windowMs = window.windowMs ?? SECOND_MS;
    this.burst = window.burst ?? false;
  }

  /** The limit paced to: the announced one, capped by a configured number; 0 when nothing is to be paced. */
  get limit(): number {
    const ceiling = this.configured === 'auto' ? Infinity : this.configured;
    const announced = this.announced ?? (this.configured === 'auto' ? ASSUMED_LIMIT : ceiling);
    if (announced === 0) return this.configured === 'auto' ? 0 : ceiling;
    return Math.min(ceiling, announced);
  }

  /** Requests per window the spacing aims for now (per second, for a pacer of a one-second window). */
  get requestsPerSecond(): number {
    return this.limit === 0 ? Infinity : this.budget() * this.share;
  }

  /**
   * Waits for the next start slot (first come, first served). Once `signal` aborts, the wait gives up its place
   * and rejects with the signal's reason.
   */
  acquire(signal?: AbortSignal): Promise<Slot> {
    const enqueued = this.clock.now();
    const released = new Promise<number>((resolve, reject) => {
      if (signal?.aborted === true) return reject(signal.reason as Error);
      const waiter = (startedAt: number) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(startedAt);
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        if (this.waiters.length === 0) this.wake?.abort();
        reject(signal!.reason as Error);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
    if (!this.pumping) void this.pump();
    return released.then((startedAt) => ({ waitedMs: startedAt - enqueued, startedAt }));
  }

  /** Learns from an answer that was not a 429 to the request started at `startedAt` (default: now). */
  observe(headers: RateLimitHeaders, startedAt = this.clock.now()): void {
    this.consecutive429 = 0;
    this.announced = headers.limit ?? 0;
    if (headers.limit !== null && headers.remaining !== null) {
      const spentOnServer = headers.limit - headers.remaining;
      const sample = spentOnServer - this.startsWithin(startedAt - this.windowMs, startedAt);
      this.others += OTHERS_WEIGHT * (sample - this.others);
    }
    if (this.limit > 0) this.share = Math.min(MAX_SHARE, this.share + SHARE_STEP / this.budget());
    // Requests started after this one take slots the answer still counted as free.
    const ahead = this.startsWithin(startedAt, Infinity);
    if (this.burst && headers.remaining !== null) {
      const resetMs = headers.resetSeconds === null ? this.windowMs : headers.resetSeconds * 1000;
      this.serverLeft = { left: headers.remaining - ahead, resetAt: this.clock.now() + resetMs + RESET_MARGIN_MS };
      // The pump may be waiting on what was known before this answer: it looks again.
      this.wake?.abort();
    }
    if (headers.remaining !== null && headers.remaining - ahead <= 0 && headers.resetSeconds !== null) {
      // A reset of 0.0 with the window full says nothing (the hosted service sends it): a slot frees about every 1/limit s.
      const untilFreeMs = Math.max(headers.resetSeconds * 1000, this.limit > 0 ? this.windowMs / this.limit : 0);
      this.pauseFor(untilFreeMs + RESET_MARGIN_MS);
    }
  }

  /**
   * A 429 to the request started at `startedAt`: the server did not count it, the share shrinks, and
   * every start waits the announced reset plus a little jitter, or, when the reset is tiny, at least 100 ms, backing
   * off over consecutive 429s (rate-limit-wait.ts). Returns that wait in milliseconds.
   */
  rateLimited(headers: RateLimitHeaders, startedAt: number): number {
    const index = this.starts.lastIndexOf(startedAt);
    if (index >= 0) this.starts.splice(index, 1);
    if (headers.limit !== null) this.announced = headers.limit;
    this.share = Math.max(MIN_SHARE, this.share * SHARE_CUT);
    this.consecutive429 += 1;
    const waitMs = rateLimitWaitMs(headers.resetSeconds, this.consecutive429, this.clock.random());
    this.pauseFor(waitMs);
    return waitMs;
  }

  /** Holds every start back for `ms` from now. */
  pauseFor(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
  }

  /** Requests per window left to this client: the limit less what the others spend, at least one. */
  private budget(): number {
    return Math.max(1, this.limit - Math.max(0, this.others));
  }

  private startsWithin(after: number, upTo: number): number {
    let count = 0;
    for (const start of this.starts) if (start > after && start <= upTo) count += 1;
    return count;
  }

  /** The earliest start the window allows: no more than the budget in any window (for a bursting pacer, its share of it). */
  private windowOpensAt(): number {
    if (this.burst && this.announced === null && this.starts.length > 0) return (this.starts.at(-1) ?? 0) + SECOND_MS;
    if (this.burst && this.serverLeft !== null && this.serverLeft.left <= 0 && this.clock.now() < this.serverLeft.resetAt) return this.serverLeft.resetAt;
    const cap = Math.max(1, Math.floor(this.burst ? this.budget() * this.share : this.budget()));
    if (this.starts.length < cap) return -Infinity;
    return (this.starts[this.starts.length - cap] ?? -Infinity) + this.windowMs + WINDOW_GUARD_MS;
  }

  /** Releases waiters one at a time, evenly spaced, within the window, after any pause. */
  private async pump(): Promise<void> {
    this.pumping = true;
    while (this.waiters.length > 0) {
      const now = this.clock.now();
      this.forget(now);
      const paced = this.limit > 0;
      const spacing = paced && !this.burst ? this.windowMs / this.requestsPerSecond : 0;
      const target = Math.max(this.lastSlot + spacing, paced ? this.windowOpensAt() : -Infinity, this.pausedUntil);
      if (target > now) {
        const wake = new AbortController();
        this.wake = wake;
        await this.clock.sleep(target - now, wake.signal).catch(() => undefined);
        this.wake = null;
        continue;
      }
      // Timers fire late on a busy machine: the schedule is kept, so the late starts catch up (the window
      // check bounds how far); after a long stall it restarts instead.
      this.lastSlot = now - target <= MAX_CATCH_UP_MS ? target : now;
      this.starts.push(now);
      if (this.serverLeft !== null) this.serverLeft.left -= 1;
      this.waiters.shift()?.(now);
    }
    this.pumping = false;
  }

  /** Drops starts too old to matter: older than a window before any request still waiting for its answer could have started. */
  private forget(now: number): void {
    const horizon = now - 2 * this.windowMs;
    let expired = 0;
    while (expired < this.starts.length && (this.starts[expired] ?? Infinity) <= horizon) expired += 1;
    if (expired > 0) this.starts.splice(0, expired);
  }
}
