import path from 'node:path';
import { watch } from 'chokidar';

export interface FolderWatch {
  close(): Promise<void>;
}

/** Dotfiles and `.git` are ignored, except `.syncignore`, which changes what the source declares. */
export function isIgnoredPath(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  if (relative === '' || relative.startsWith('..')) return false;
  return relative.split(path.sep).some((segment) => segment.startsWith('.') && segment !== '.syncignore');
}

/**
 * Watches a local source folder and calls `onChange` once per burst of changes, `debounceMs` after the last one.
 * Resolves once the initial scan is done, so changes made after that are seen.
 */
export async function watchFolder(root: string, onChange: () => void, debounceMs = 300): Promise<FolderWatch> {
  let timer: NodeJS.Timeout | null = null;
  const watcher = watch(root, { ignoreInitial: true, ignored: (file) => isIgnoredPath(root, file) });
  watcher.on('all', () => {
    if (timer !== null) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      onChange();
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
