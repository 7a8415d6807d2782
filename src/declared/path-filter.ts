import { readFile } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Folders whose contents are never policies, at any depth. */
const TEST_FOLDERS: ReadonlySet<string> = new Set(['test', 'tests', 'testdata', 'mocks']);

export const SYNCIGNORE_FILE = '.syncignore';
/** Policy code and settings: `<name>.native`, `.rego` or `.yaml` at any depth under `policies/`. */
export const POLICY_FILE = /^policies\/.+\.(native|rego|yaml)$/;
/** Agent pools: `agent-pools/<name>.yaml`, no subfolders. */
export const POOL_FILE = /^agent-pools\/[^/]+\.yaml$/;

/** Decides which paths of a source are left out. Paths are relative to the source root, with `/` separators. */
export interface PathFilter {
  isIgnored(relPath: string, isDirectory: boolean): boolean;
}

/** The built-in rules: dotfiles and dot-folders, test and mock folders, `_test.rego` files. */
function isBuiltinIgnored(relPath: string, isDirectory: boolean): boolean {
  const segments = relPath.split('/');
  const last = segments.length - 1;
  for (const [index, segment] of segments.entries()) {
    if (segment.startsWith('.')) return true;
    const isFolder = index < last || isDirectory;
    if (isFolder && TEST_FOLDERS.has(segment)) return true;
  }
  return !isDirectory && relPath.endsWith('_test.rego');
}

/** A filter from the built-in rules plus the text of a `.syncignore` (gitignore syntax), if any. */
export function createPathFilter(syncignore: string | null): PathFilter {
  const rules: Ignore | null = syncignore === null ? null : ignore().add(syncignore);
  return {
    isIgnored(relPath, isDirectory) {
      if (isBuiltinIgnored(relPath, isDirectory)) return true;
      if (rules === null || relPath === '') return false;
      return rules.ignores(isDirectory ? `${relPath}/` : relPath);
    },
  };
}

/** The filter of the source at `root`: the built-in rules plus its `.syncignore`, when there is one. */
export async function loadPathFilter(root: string): Promise<PathFilter> {
  return createPathFilter(await readSyncignore(root));
}

async function readSyncignore(root: string): Promise<string | null> {
  try {
    return await readFile(path.join(root, SYNCIGNORE_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * True for a path whose change can change the declared state: policy code or settings, a pool file, `.syncignore`.
 * The file watch of a local source triggers passes for these only.
 */
export function isDeclaredPath(relPath: string, filter: PathFilter): boolean {
  if (relPath === SYNCIGNORE_FILE) return true;
  return (POLICY_FILE.test(relPath) || POOL_FILE.test(relPath)) && !filter.isIgnored(relPath, false);
}
