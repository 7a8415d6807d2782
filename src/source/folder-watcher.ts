/**
 * A watch of a folder tree that holds one `fs.watch` per folder, none per file: a folder's watch reports the files
 * in it that are created, changed, removed or renamed (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on
 * Windows all do), so a repo of 20,000 policies in 200 folders costs 200 of the kernel's watches, not 20,000. A
 * folder created later is watched when its creation is seen, and the files already in it are reported; a folder
 * removed has its watches closed.
 *
 * Running out of watches (ENOSPC: on Linux, `fs.inotify.max_user_watches`, counted for every process of the user) is
 * an error that names the limit, its value and the fix (WatchLimitError): at start the watch fails whole, closing what
 * it opened; later (a folder added) the watch ends and `onFailed` is told. Either way the caller falls back to its
 * schedule.
 */
import { readFileSync, watch as fsWatch, type FSWatcher, type WatchListener } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

/** How the watch starts one folder's `fs.watch` (Node's own unless a caller says otherwise). */
export type StartFolderWatch = (folder: string, listener: WatchListener<string>) => FSWatcher;

export interface FolderTreeOptions {
  /** Paths (folders and files) that are neither watched nor reported. */
  ignored(file: string): boolean;
  /** A path under the tree changed; `isDirectory` when it is, or was, a folder. */
  onChange(file: string, isDirectory: boolean): void;
  /** The watch ended after it started (a folder added could not be watched): no event comes any more. */
  onFailed(error: Error): void;
  /** @default fs.watch */
  startWatch?: StartFolderWatch;
}

export interface FolderTreeWatch {
  /** The folders watched now. */
  readonly folders: number;
  close(): void;
}

/** The kernel refused one more watch: names the limit and how to raise it. */
export class WatchLimitError extends Error {
  readonly code = 'ENOSPC';
}

const MAX_USER_WATCHES = '/proc/sys/fs/inotify/max_user_watches';

/** Resolves once every folder of the tree is watched; rejects (with nothing left open) if one cannot be. */
export async function watchFolderTree(root: string, options: FolderTreeOptions): Promise<FolderTreeWatch> {
  const start = options.startWatch ?? ((folder, listener) => fsWatch(folder, { persistent: true }, listener));
  const watches = new Map<string, FSWatcher>();
  let closed = false;
  let failed = false;

  const close = (): void => {
    closed = true;
    for (const watcher of watches.values()) watcher.close();
    watches.clear();
  };
  const unwatch = (folder: string): void => {
    for (const [watched, watcher] of watches) {
      if (watched !== folder && !watched.startsWith(`${folder}${path.sep}`)) continue;
      watcher.close();
      watches.delete(watched);
    }
  };
  const fail = (error: Error): void => {
    if (closed || failed) return;
    failed = true;
    close();
    options.onFailed(error);
  };

  const watchOne = (folder: string): void => {
    let watcher: FSWatcher;
    try {
      watcher = start(folder, (_event, name) => void changed(folder, name));
    } catch (error) {
      throw watchError(error, folder, watches.size);
    }
    // A watched folder removed or made unreadable: its watch ends; its parent's watch reports the removal.
    watcher.on('error', () => {
      watcher.close();
      if (watches.get(folder) === watcher) watches.delete(folder);
    });
    watches.set(folder, watcher);
  };

  /** Watches `folder` and the folders under it; `report`: the paths found are changes (a folder added after start). */
  const watchTree = async (folder: string, report: boolean): Promise<void> => {
    if (closed || watches.has(folder)) return;
    watchOne(folder);
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const full = path.join(folder, entry.name);
      if (closed || options.ignored(full)) continue;
      if (entry.isDirectory()) await watchTree(full, report);
      if (report) options.onChange(full, entry.isDirectory());
    }
  };

  const changed = async (folder: string, name: string | null): Promise<void> => {
    if (closed) return;
    if (name === null || name === '') {
      options.onChange(folder, true);
      return;
    }
    const full = path.join(folder, name);
    if (options.ignored(full)) return;
    const wasFolder = watches.has(full);
    const isFolder = await lstat(full).then((stat) => stat.isDirectory(), () => false);
    if (closed) return;
    if (isFolder && !wasFolder) {
      try {
        await watchTree(full, true);
      } catch (error) {
        fail(error instanceof Error ? error : new Error(String(error)));
        return;
      }
    }
    if (wasFolder && !isFolder) unwatch(full);
    options.onChange(full, isFolder || wasFolder);
  };

  try {
    await watchTree(root, false);
  } catch (error) {
    close();
    throw error;
  }
  return {
    get folders() {
      return watches.size;
    },
    close,
  };
}

/** ENOSPC as the limit it is, with its value and the fix; anything else as it came. */
function watchError(error: unknown, folder: string, watching: number): Error {
  if ((error as NodeJS.ErrnoException | null)?.code !== 'ENOSPC') return error instanceof Error ? error : new Error(String(error));
  let limit = 'its value';
  try {
    limit = readFileSync(MAX_USER_WATCHES, 'utf8').trim();
  } catch {
    // Not Linux, or /proc not mounted: the message names the setting without its value.
  }
  return new WatchLimitError(
    `cannot watch ${folder}: the system's limit of file watches is reached (fs.inotify.max_user_watches = ${limit}, ` +
    `shared by every process of this user; this source had ${watching} folders watched). Raise it on the host ` +
    '(sysctl -w fs.inotify.max_user_watches=524288, and in /etc/sysctl.d to keep it; on Kubernetes, on the node). ' +
    'Until then this source is synced on its schedule (and by webhook) only.',
    { cause: error },
  );
}
