/**
 * chokidar's watcher, closed so that nothing of it is left holding the process.
 *
 * chokidar 5 drops the closer of a folder whose `fs.watch` it starts while `close()` runs: `_addToNodeFs` re-checks
 * `closed` after `await _handleDir(...)` and returns without registering the closer it was given
 * (paulmillr/chokidar#1482, fixed in chokidar 6, which needs Node 22). The orphaned `fs.watch` keeps the event loop
 * alive: a daemon told to stop while a new folder is being added would never exit. So every closer chokidar makes is
 * kept here, called at most once, and those chokidar did not call are called once it has closed.
 *
 * chokidar also re-opens a closed watcher: when the last file it watches is removed it watches the folder above for the
 * file's return (`_remove` calls `add`, and `add` sets `closed` back to false), and an event already queued when
 * `close()` ran still gets there. A folder deleted as its watch closes (a test's temp folder, a checkout swept away)
 * would leave an `fs.watch` on the folder above. So `add` does nothing once closing has begun.
 */
import { watch, type ChokidarOptions, type FSWatcher } from 'chokidar';

export interface FolderWatcher {
  watcher: FSWatcher;
  /** Closes the watcher and every `fs.watch` it started, whether chokidar still knew of it or not. */
  close(): Promise<void>;
}

/** The part of chokidar's handler that starts an `fs.watch` and answers the function that stops it. */
interface NodeFsHandler {
  _watchWithNodeFs(...args: unknown[]): unknown;
}

export function watchFolderTree(root: string, options: ChokidarOptions): FolderWatcher {
  const watcher = watch(root, options);
  const open = new Set<() => void>();
  const handler = (watcher as unknown as { _nodeFsHandler?: Partial<NodeFsHandler> })._nodeFsHandler;
  const start = handler?._watchWithNodeFs;
  if (handler !== undefined && typeof start === 'function') {
    handler._watchWithNodeFs = (...args: unknown[]): unknown => {
      const closer = start.apply(handler, args);
      if (typeof closer !== 'function') return closer;
      const once = (): void => {
        if (open.delete(once)) (closer as () => void)();
      };
      open.add(once);
      return once;
    };
  }
  return {
    watcher,
    async close() {
      watcher.add = () => watcher;
      await watcher.close();
      for (const closer of [...open]) closer();
    },
  };
}
