/**
 * The start of many sources, spread so that the event loop stays free for the HTTP server: at most START_UP_AT_ONCE
 * sources start at a time (their folder watch set up, their start-up pass run to its end), the next as soon as one
 * is done, and no later than its slot in its first schedule period (source i of n at i/n of it), so that every source
 * has had its start-up pass begin before its first tick. Between two starts the event loop takes its turn.
 */
import { setImmediate as turn } from 'node:timers/promises';

/** Sources starting at once. */
export const START_UP_AT_ONCE = 4;

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); Node fires a longer one after 1 ms, with a warning. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

export interface StartUpItem {
  /** The time between its schedule's first two ticks, or null (no slot: it starts in turn). */
  periodMs: number | null;
  /** Starts it; resolves once it is done (its start-up pass ended). Must not throw. */
  start(): Promise<void>;
}

export interface StartUp {
  /** Resolves once every item has started and is done (or the start-up was stopped). */
  done: Promise<void>;
  /** Starts nothing more. */
  stop(): void;
}

export function staggeredStartUp(items: readonly StartUpItem[], atOnce = START_UP_AT_ONCE): StartUp {
  const started = new Set<number>();
  const ends: Array<Promise<void>> = [];
  const timers: NodeJS.Timeout[] = [];
  const stopEnds: Array<() => void> = [];
  let running = 0;
  let stopped = false;
  let allStarted: () => void = () => undefined;
  const everyStarted = new Promise<void>((resolve) => (allStarted = resolve));
  const launch = (index: number): void => {
    if (stopped || started.has(index)) return;
    started.add(index);
    running += 1;
    ends.push((async () => {
      await turn();
      if (!stopped) await items[index]!.start();
      running -= 1;
      pump();
    })());
    if (started.size === items.length) allStarted();
  };
  const pump = (): void => {
    for (let index = 0; index < items.length && running < atOnce && !stopped; index += 1) launch(index);
  };
  items.forEach((item, index) => {
    if (item.periodMs === null || index === 0) return;
    const slotMs = Math.floor((index / items.length) * item.periodMs);
    // A slot past the longest timer (a yearly schedule's) is not kept: the source starts in turn, as it would anyway.
    if (slotMs > LONGEST_TIMER_MS) return;
    const timer = setTimeout(() => launch(index), slotMs);
    timer.unref();
    timers.push(timer);
  });
  if (items.length === 0) allStarted();
  pump();
  return {
    done: Promise.race([everyStarted, new Promise<void>((resolve) => stopEnds.push(resolve))]).then(async () => {
      await Promise.all(ends);
    }),
    stop() {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      for (const end of stopEnds) end();
    },
  };
}
