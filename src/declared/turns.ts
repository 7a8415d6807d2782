/**
 * The repo is read with synchronous calls, which block the event loop. Every `every` steps the reader gives the
 * loop a turn (so a daemon keeps answering) and stops if `signal` has aborted.
 */
export function turnTaker(every: number, signal?: AbortSignal): () => Promise<void> | undefined {
  let steps = 0;
  return () => {
    steps += 1;
    if (steps % every !== 0) return undefined;
    return new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        if (signal?.aborted) reject(signal.reason);
        else resolve();
      });
    });
  };
}
