import { lstatSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import type { SourceProblem } from '../errors.js';
import { decodeText, readSourceFile } from './read-file.js';
import { lfsPointerProblem } from './lfs-pointer.js';

/** Folders whose contents are never policies, at any depth. */
const TEST_FOLDERS: ReadonlySet<string> = new Set(['test', 'tests', 'testdata', 'mocks']);

export const SYNCIGNORE_FILE = '.syncignore';
/** Policy code and settings: `<name>.native` (or the vendor's `.sentinel`), `.rego` or `.yaml` at any depth under `policies/`. */
export const POLICY_FILE = /^policies\/.+\.(native|sentinel|rego|yaml)$/;
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

/** The largest `.syncignore` read. */
export const MAX_SYNCIGNORE_BYTES = 1_048_576;

/**
 * The filter of the source at `root` (real path `realRoot`): the built-in rules plus its `.syncignore`, when there is
 * one. A `.syncignore` that is not a readable text file inside the root (a folder, a link leaving the repo, a device,
 * over 1 MiB) is a problem, not a crash.
 */
export function loadPathFilter(root: string, realRoot: string): { filter: PathFilter } | { problem: SourceProblem } {
  const abs = path.join(root, SYNCIGNORE_FILE);
  try {
    lstatSync(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { filter: createPathFilter(null) };
  }
  const read = readSourceFile(realRoot, SYNCIGNORE_FILE, abs, MAX_SYNCIGNORE_BYTES);
  if ('problem' in read) return read;
  const pointer = lfsPointerProblem(SYNCIGNORE_FILE, read.bytes, read.bytes.length);
  if (pointer !== null) return { problem: pointer };
  const text = decodeText(SYNCIGNORE_FILE, read.bytes);
  return 'problem' in text ? text : { filter: createPathFilter(text.text) };
}

/** Near misses under `policies/`: a `.yml` settings file is refused with a hint, an upper-case extension warned about. */
export function policyNearMiss(rel: string): { problem: string } | { warning: string } | null {
  return nearMiss(rel, /^policies\/.+\.(native|sentinel|rego|ya?ml)$/i, 'settings files');
}

/** Near misses in `agent-pools/`: `<name>.yml` is refused with a hint, an upper-case extension warned about. */
export function poolNearMiss(rel: string): { problem: string } | { warning: string } | null {
  return nearMiss(rel, /^agent-pools\/[^/]+\.ya?ml$/i, 'agent pool files');
}

function nearMiss(rel: string, pattern: RegExp, what: string): { problem: string } | { warning: string } | null {
  if (!pattern.test(rel)) return null;
  const dot = rel.lastIndexOf('.');
  const stem = rel.slice(rel.lastIndexOf('/') + 1, dot);
  const ext = rel.slice(dot + 1);
  if (ext === 'yml') return { problem: `is not read: ${what} end in .yaml; rename it to ${stem}.yaml` };
  const lower = ext.toLowerCase() === 'yml' ? 'yaml' : ext.toLowerCase();
  return { warning: `is not read: only lower-case extensions are; rename it to ${stem}.${lower} to declare it` };
}

/**
 * True for a path whose change can change the declared state: policy code or settings, a pool file, any file under
 * `policy-sets/` and a set's config file under `policies/` (a set's other files there are policy-like files),
 * `.syncignore`. The file watch of a local source triggers passes for these only.
 */
export function isDeclaredPath(relPath: string, filter: PathFilter): boolean {
  if (relPath === SYNCIGNORE_FILE) return true;
  const inSets = relPath.startsWith('policy-sets/') || /^policies\/.+\.hcl$/.test(relPath);
  return (POLICY_FILE.test(relPath) || POOL_FILE.test(relPath) || inSets) && !filter.isIgnored(relPath, false);
}

/** The filter a file watch judges changes by: that of `loadPathFilter`, or the built-in rules alone when `.syncignore` is unusable (the pass reports it). */
export async function watchPathFilter(root: string): Promise<PathFilter> {
  const loaded = loadPathFilter(root, await realpath(root));
  return 'filter' in loaded ? loaded.filter : createPathFilter(null);
}
