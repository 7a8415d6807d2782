import path from 'node:path';
import { watch } from 'chokidar';
import { isDeclaredPath, SYNCIGNORE_FILE, watchPathFilter, type PathFilter } from '../declared/index.js';
import type { Source, SourceWatch } from './types.js';

/** A local folder, read where it is; a watch on it triggers passes. */
export function localSource(dir: string): Source {
  return {
    kind: 'path',
    checkout: () => Promise.resolve({ dir, revision: null }),
    watch: (onChange, debounceMs) => watchFolder(dir, onChange, debounceMs),
  };
}

/** Dotfiles and `.git` are not watched at all, except `.syncignore`, which changes what the source declares. */
function isUnwatchedPath(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..')) return false;
  return relative.split(path.sep).some((segment) => segment.startsWith('.') && segment !== SYNCIGNORE_FILE);
}

/**
 * Watches a local source folder and calls `onChange` once per burst of changes to declared files (policy code and
 * settings, pool files, `.syncignore`, and the folders holding them), `debounceMs` after the last one, with their paths. Files that
 * cannot change the declared state (a README, a mock, anything `.syncignore` leaves out) trigger nothing.
 * Resolves once the initial scan is done, so changes made after that are seen.
 */
async function watchFolder(root: string, onChange: (changed: readonly string[]) => void, debounceMs = 300): Promise<SourceWatch> {
  let filter = await watchPathFilter(root);
  let timer: NodeJS.Timeout | null = null;
  const changed = new Set<string>();
  let rules: Promise<void> = Promise.resolve();
  const watcher = watch(root, { ignoreInitial: true, ignored: (file) => isUnwatchedPath(root, file) });
  watcher.on('all', (event, file) => {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const isDirectory = event === 'addDir' || event === 'unlinkDir';
    if (rel === SYNCIGNORE_FILE) {
      // Later events are judged by the new rules; this change itself always counts.
      rules = watchPathFilter(root).then((next) => void (filter = next), () => undefined);
    } else if (!declares(rel, isDirectory, filter)) {
      return;
    }
    changed.add(rel);
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      const burst = [...changed].sort();
      changed.clear();
      // Reported once the rules of a changed .syncignore are in force: what comes after the burst is judged by them.
      void rules.then(() => onChange(burst));
    }, debounceMs);
  });
  await new Promise<void>((resolve, reject) => {
    watcher.once('ready', () => resolve());
    watcher.once('error', reject);
  });
  return {
    async close() {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      await watcher.close();
    },
  };
}

/** A folder counts when it can hold declared files: `policies` and the folders under it, `agent-pools`. */
function declares(rel: string, isDirectory: boolean, filter: PathFilter): boolean {
  if (!isDirectory) return isDeclaredPath(rel, filter);
  if (rel === 'agent-pools' || rel === 'policies') return true;
  return rel.startsWith('policies/') && !filter.isIgnored(rel, true);
}
