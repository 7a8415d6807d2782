import type { PassRecord } from '../operations/pass-record.js';

/** Lets a caller wait for the end of the first pass that starts after it asked: `POST /sources/<name>/sync?wait=1`. */
export interface PassWaiters {
  /** Resolves with the record of the first pass that starts after this call; null if the daemon stops first. */
  next(): Promise<PassRecord | null>;
  started(): void;
  ended(record: PassRecord): void;
  /** The daemon stops: every waiter gets null. */
  close(): void;
}

export function createPassWaiters(): PassWaiters {
  /** Passes started so far; the pass in flight is number `started`. */
  let started = 0;
  let waiting: { after: number; resolve(record: PassRecord | null): void }[] = [];
  return {
    next() {
      const after = started;
      return new Promise((resolve) => waiting.push({ after, resolve }));
    },
    started() {
      started += 1;
    },
    ended(record) {
      const done = waiting.filter((w) => w.after < started);
      waiting = waiting.filter((w) => w.after >= started);
      for (const w of done) w.resolve(record);
    },
    close() {
      for (const w of waiting) w.resolve(null);
      waiting = [];
    },
  };
}
