/**
 * A turn of the event loop with its I/O in it: resolves only after the loop has run a poll phase (the daemon's
 * HTTP requests, the timers) since it was asked. One `setImmediate` asked from an I/O callback runs in that same
 * turn's check phase, before any further I/O; one asked from the check phase runs in the next turn, after its timers
 * and I/O. Two in a row give the loop a poll phase between, wherever they are asked from. For a long synchronous stage
 * (the plan of 20,000 policies, a large cache's serialization) to end its hold on the loop.
 */
export function loopTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
}
