/**
 * What a command line or daemon run in the test's own process may change of the process, put back when it ends: the
 * working directory (changed only for a run given `cwd`; such runs take turns), the SIGINT, SIGTERM and beforeExit
 * handlers it added (a run's stop handlers would otherwise swallow a signal meant for the test process), the exit code
 * and the umask (the daemon clears its group-write bit). The environment is not touched: the code under test reads the
 * `env` it is given, never `process.env`.
 */
const EVENTS = ['SIGINT', 'SIGTERM', 'beforeExit'] as const;
type Listener = (...args: unknown[]) => void;

/** The runs that change the working directory, one after the other. */
let cwdTurn: Promise<unknown> = Promise.resolve();

/** The handlers of `EVENTS` added since `before` was taken. */
export function addedListeners(before: Map<string, Listener[]>): Array<[string, Listener]> {
  return EVENTS.flatMap((event) => {
    const had = before.get(event) ?? [];
    return (process.rawListeners(event) as Listener[]).filter((l) => !had.includes(l)).map((l): [string, Listener] => [event, l]);
  });
}

export function listenerSnapshot(): Map<string, Listener[]> {
  return new Map(EVENTS.map((event) => [event, [...(process.rawListeners(event) as Listener[])]]));
}

/** Runs `body` (in `cwd` when given), then puts the process's state back as it was. */
export async function inProcessState<T>(cwd: string | undefined, body: () => Promise<T>): Promise<T> {
  if (cwd === undefined || cwd === process.cwd()) return restoring(body);
  const turn = cwdTurn.then(() => restoring(body, cwd));
  cwdTurn = turn.catch(() => undefined);
  return turn;
}

async function restoring<T>(body: () => Promise<T>, cwd?: string): Promise<T> {
  const listeners = listenerSnapshot();
  const exitCode = process.exitCode;
  // Read by setting it (reading alone is deprecated), then set back.
  const umask = process.umask(0o022);
  process.umask(umask);
  const dir = process.cwd();
  if (cwd !== undefined) process.chdir(cwd);
  try {
    return await body();
  } finally {
    if (cwd !== undefined) process.chdir(dir);
    for (const [event, listener] of addedListeners(listeners)) process.off(event, listener);
    process.exitCode = exitCode;
    process.umask(umask);
  }
}
