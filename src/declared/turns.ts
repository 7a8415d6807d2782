/**
 * The repo is read with synchronous calls, which block the event loop. Every `every` steps, and whenever TURN_MS have
 * passed since the last turn (a slow disk, a busy host, large files), the reader gives the loop a turn (so a daemon
 * keeps answering, and sources read at once take turns) and stops if `signal` has aborted.
 */
export function turnTaker(every: number, signal?: AbortSignal): () => Promise<void> | undefined {
  let steps = 0;
  let since = performance.now();
  return () => {
    steps += 1;
    if (steps < every && performance.now() - since < TURN_MS) return undefined;
    steps = 0;
    return new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        since = performance.now();
        if (signal?.aborted) reject(signal.reason);
        else resolve();
      });
    });
  };
}

/** The longest a reader holds the event loop between two turns, but for one step that takes longer. */
export const TURN_MS = 10;
