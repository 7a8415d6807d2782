/**
 * The repo is read with synchronous calls, which block the event loop. Every `every` steps, and whenever TURN_MS have
 * passed since the last turn (a slow disk, a busy host, large files), the reader gives the loop a turn (so a daemon
 * keeps answering, and sources read at once take turns) and stops if `signal` has aborted.
 *
 * The readers waiting for a turn are served one a turn of the loop, in the order they asked: were each resumed by its
 * own `setImmediate`, every source reading at once would run its TURN_MS in the same turn, and a daemon starting many
 * sources would hold the loop for that many times TURN_MS between two answers.
 */
export function turnTaker(every: number, signal?: AbortSignal): () => Promise<void> | undefined {
  let steps = 0;
  // The first step waits for a turn too: a source's read starts in its own turn, not in the one that started it.
  let since = -Infinity;
  return () => {
    steps += 1;
    if (steps < every && performance.now() - since < TURN_MS) return undefined;
    steps = 0;
    return nextTurn().then(() => {
      since = performance.now();
      if (signal?.aborted) throw signal.reason;
    });
  };
}

/** The longest a reader holds the event loop between two turns, but for one step that takes longer. */
export const TURN_MS = 10;

const waiting: Array<() => void> = [];
let serving = false;

/** Resolves in a later turn of the event loop than the one it was asked in, and alone in its turn. */
function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    if (serving) return;
    serving = true;
    setImmediate(serveOne);
  });
}

function serveOne(): void {
  const next = waiting.shift();
  // Asked for in this check phase, so it runs in the next turn, after that turn's timers and I/O.
  if (waiting.length > 0) setImmediate(serveOne);
  else serving = false;
  next?.();
}
