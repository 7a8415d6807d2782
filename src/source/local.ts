import { existsSync } from 'node:fs';
import path from 'node:path';
import { isDeclaredPath, SET_CONFIG_FILES, SYNCIGNORE_FILE, watchPathFilter, type PathFilter } from '../declared/index.js';
import { watchFolderTree, type StartFolderWatch } from './folder-watcher.js';
import { refuseStateDirInRepo } from './state-dir-guard.js';
import type { Source, SourceWatch } from './types.js';

export interface LocalSourceOptions {
  /** How one folder's `fs.watch` starts. @default fs.watch */
  startWatch?: StartFolderWatch;
}

/**
 * A local folder, read where it is; a watch of its folders (one per folder, none per file) triggers passes. Each
 * checkout refuses a state dir the folder's git work tree tracks files in (`state-dir-guard.ts`).
 */
export function localSource(dir: string, stateDir: string, options: LocalSourceOptions = {}): Source {
  return {
    kind: 'path',
    checkout: async () => {
      await refuseStateDirInRepo(dir, stateDir);
      return { dir, revision: null };
    },
    watch: (onChange, debounceMs, onFailed) => watchFolder(dir, { onChange, debounceMs, onFailed, startWatch: options.startWatch }),
  };
}

/** Dotfiles and `.git` are not watched at all, except `.syncignore`, which changes what the source declares. */
function isUnwatchedPath(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..')) return false;
  return relative.split(path.sep).some((segment) => segment.startsWith('.') && segment !== SYNCIGNORE_FILE);
}

interface WatchFolderOptions {
  onChange(changed: readonly string[]): void;
  debounceMs: number | undefined;
  onFailed: ((error: Error) => void) | undefined;
  startWatch: StartFolderWatch | undefined;
}

/**
 * Watches a local source folder and calls `onChange` once per burst of changes to declared files (policy code and
 * settings, pool files, `.syncignore`, and the folders holding them), `debounceMs` after the last one, with their paths. Files that
 * cannot change the declared state (a README, a mock, anything `.syncignore` leaves out) trigger nothing.
 * Resolves once every folder is watched, so changes made after that are seen; rejects when one cannot be (the
 * system's limit of watches: folder-watcher.ts says which and how to raise it).
 */
async function watchFolder(root: string, options: WatchFolderOptions): Promise<SourceWatch> {
  const debounceMs = options.debounceMs ?? 300;
  let filter = await watchPathFilter(root);
  let timer: NodeJS.Timeout | null = null;
  const changed = new Set<string>();
  let rules: Promise<void> = Promise.resolve();
  const stopTimer = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
  };
  const onChange = (file: string, isDirectory: boolean) => {
    const rel = path.relative(root, file).split(path.sep).join('/');
    if (rel === SYNCIGNORE_FILE) {
      // Later events are judged by the new rules; this change itself always counts.
      rules = watchPathFilter(root).then((next) => void (filter = next), () => undefined);
    } else if (!declares(rel, isDirectory, filter) && !inSetFolder(root, rel, filter)) {
      return;
    }
    changed.add(rel);
    stopTimer();
    timer = setTimeout(() => {
      timer = null;
      const burst = [...changed].sort();
      changed.clear();
      // Reported once the rules of a changed .syncignore are in force: what comes after the burst is judged by them.
      void rules.then(() => options.onChange(burst));
    }, debounceMs);
  };
  const watch = await watchFolderTree(root, {
    ignored: (file) => isUnwatchedPath(root, file),
    onChange,
    onFailed: (error) => {
      stopTimer();
      options.onFailed?.(error);
    },
    ...(options.startWatch === undefined ? {} : { startWatch: options.startWatch }),
  });
  return {
    close() {
      stopTimer();
      watch.close();
      return Promise.resolve();
    },
  };
}

/**
 * A policy set's folder may sit anywhere in the repo: a set's config file counts wherever it is, and so does any path
 * in a folder (or under one) that holds a config file. Looked up on the disk per event: the watch keeps no list of sets.
 */
function inSetFolder(root: string, rel: string, filter: PathFilter): boolean {
  if (rel === '' || filter.isIgnored(rel, false)) return false;
  if (path.posix.basename(rel) in SET_CONFIG_FILES) return true;
  for (let folder = path.posix.dirname(rel); folder !== '.'; folder = path.posix.dirname(folder)) {
    if (Object.keys(SET_CONFIG_FILES).some((config) => existsSync(path.join(root, ...folder.split('/'), config)))) return true;
  }
  return false;
}

/** A folder counts when it can hold declared files: `policies` and the folders under it, `agent-pools`. */
function declares(rel: string, isDirectory: boolean, filter: PathFilter): boolean {
  if (!isDirectory) return isDeclaredPath(rel, filter);
  if (rel === 'agent-pools' || rel === 'policies') return true;
  return rel.startsWith('policies/') && !filter.isIgnored(rel, true);
}
