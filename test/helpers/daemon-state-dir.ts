import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';

/** The stops of the daemons each test started (in this process or as a child). */
const stopsOf = new WeakMap<TestContext, Array<() => Promise<void>>>();

/** `stop`, run once whichever hook asks first, and known to `newStateDir` as a daemon of the test `t`. */
export function stoppedWithTest(t: TestContext, stop: () => Promise<void>): () => Promise<void> {
  let stopped: Promise<void> | null = null;
  const once = () => (stopped ??= stop());
  stopsOf.set(t, [...(stopsOf.get(t) ?? []), once]);
  return once;
}

/**
 * A state dir that does not exist yet, inside a temp folder removed once every daemon the test started has stopped:
 * a daemon writes its history and suspensions there until its stop, which waits for its last write. A removal the
 * test registered itself before a daemon started would run first (`t.after` hooks run in the order they were
 * registered) and race that write (`ENOTEMPTY` on the state dir). Daemons may share it.
 */
export async function newStateDir(t: TestContext): Promise<string> {
  const parent = await mkdtemp(path.join(os.tmpdir(), 'pps-state-'));
  t.after(async () => {
    await Promise.all((stopsOf.get(t) ?? []).map((stop) => stop()));
    await rm(parent, { recursive: true, force: true });
  });
  return path.join(parent, 'state');
}
