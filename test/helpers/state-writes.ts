/**
 * Counts the writes of state files under a folder as the code makes them, in this process: every state file is
 * written to a temporary file beside it, then renamed over it (state-dir.ts), so a rename onto a file is one write of
 * it, and the temporary files open at once for one file are its writes under way. The real functions of node:fs do
 * the work; they are wrapped, not replaced, until `stop`.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import path from 'node:path';

export interface StateWriteCounter {
  /** Writes of each file, by its path. */
  writes(file: string): number;
  /** Every file written, with its writes. */
  all(): Map<string, number>;
  /** The most writes of one file under way at once. */
  mostAtOnce(): number;
  stop(): void;
}

const TEMPORARY = /\.\d+\.[0-9a-f]+\.tmp$/;

export function countStateWrites(folder: string): StateWriteCounter {
  const root = path.resolve(folder);
  const under = (file: unknown) => {
    const absolute = path.resolve(String(file));
    return absolute.startsWith(`${root}${path.sep}`) ? absolute : null;
  };
  const writes = new Map<string, number>();
  const underWay = new Map<string, number>();
  let most = 0;
  const promises = fs.promises;
  const { open, rename, unlink } = promises;
  const settle = (temporary: string) => {
    const file = temporary.replace(TEMPORARY, '');
    underWay.set(file, (underWay.get(file) ?? 1) - 1);
  };
  promises.open = (async (file: fs.PathLike, ...rest: Parameters<typeof open> extends [unknown, ...infer R] ? R : never) => {
    const handle = await open(file, ...rest);
    const absolute = under(file);
    if (absolute !== null && TEMPORARY.test(absolute)) {
      const target = absolute.replace(TEMPORARY, '');
      const now = (underWay.get(target) ?? 0) + 1;
      underWay.set(target, now);
      most = Math.max(most, now);
    }
    return handle;
  }) as typeof open;
  promises.rename = async (from: fs.PathLike, to: fs.PathLike) => {
    await rename(from, to);
    const absolute = under(to);
    if (absolute === null) return;
    if (TEMPORARY.test(String(from))) settle(path.resolve(String(from)));
    writes.set(absolute, (writes.get(absolute) ?? 0) + 1);
  };
  promises.unlink = async (file: fs.PathLike) => {
    await unlink(file);
    const absolute = under(file);
    if (absolute !== null && TEMPORARY.test(absolute)) settle(absolute);
  };
  syncBuiltinESMExports();
  return {
    writes: (file) => writes.get(path.resolve(file)) ?? 0,
    all: () => new Map(writes),
    mostAtOnce: () => most,
    stop() {
      Object.assign(promises, { open, rename, unlink });
      syncBuiltinESMExports();
    },
  };
}
