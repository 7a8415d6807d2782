/**
 * Where a declared agent token's text may go: a file inside the folder the operator allows (`--token-dir`,
 * `tokens.dir` in the config), never one the repo alone chooses. One rule, which `--validate`, `--dry-run` and the
 * delivery itself ask: the name is relative, with no `.` or `..` segment, and it leads inside the folder by its real
 * path (no link out, neither of a folder on the way nor of the file itself).
 */
import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../path-inside.js';

export const NO_TOKEN_DIR = 'no folder is allowed for token files: the operator allows one (--token-dir DIR, or tokens.dir in the config)';

/** The absolute path a token's `deliver-to.file` leads to, or why it may not be written. */
export function tokenTarget(dir: string | null, file: string): { path: string } | { problem: string } {
  if (dir === null) return { problem: NO_TOKEN_DIR };
  const segments = file.split(/[\\/]/);
  if (path.isAbsolute(file) || /^[A-Za-z]:/.test(file) || segments.some((s) => s === '' || s === '.' || s === '..')) {
    return { problem: `"${file}" leads out of the token folder: give a name relative to it, without . or .. segments` };
  }
  const folder = path.resolve(dir);
  const target = path.join(folder, ...segments);
  const realFolder = realOrNull(folder);
  if (realFolder === null) return { problem: `the token folder ${folder} does not exist` };
  // The deepest folder on the way that exists must be inside the real folder: a link there leads elsewhere.
  let parent = path.dirname(target);
  while (realOrNull(parent) === null && parent !== folder) parent = path.dirname(parent);
  const realParent = realOrNull(parent);
  if (realParent === null || !isInside(realFolder, realParent)) return { problem: `"${file}" leads out of the token folder through a link` };
  if (isLink(target)) return { problem: `"${file}" is a link in the token folder; a token is written only to a regular file` };
  return { path: target };
}

function realOrNull(file: string): string | null {
  try {
    return realpathSync(file);
  } catch {
    return null;
  }
}

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}
