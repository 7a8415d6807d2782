/**
 * One file's writes, one at a time and coalesced: a write asked for while one is under way is made once, after it,
 * for every request that came meanwhile. `write` writes what is newest when it starts, so the last request is always
 * followed by a write that holds it, and a burst of requests (many passes ending together) costs at most two.
 */
export type CoalescedWrite = () => Promise<void>;

/** `write` must not throw: it reports its own failure (a failed state write is a warning). */
export function coalescedWrites(write: () => Promise<void>): CoalescedWrite {
  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;
  const start = (): Promise<void> => {
    const current = write().finally(() => {
      if (running === current) running = null;
    });
    running = current;
    return current;
  };
  return () => {
    if (running === null) return start();
    queued ??= running.then(() => {
      queued = null;
      return start();
    });
    return queued;
  };
}
