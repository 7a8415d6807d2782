import path from 'node:path';

/**
 * Whether `target` is `folder` itself or inside it, both absolute: the one test of "under a folder" for the repo's
 * files, a set's folder, the folder parameters may read and the tool's reserved files. Paths are compared as they are
 * given (resolve links first where a link could lead out). `..` itself, and anything through it, is outside; a name
 * that merely begins with two dots (a Secret volume's `..data`, `..2026_12_01…`) is inside.
 */
export function isInside(folder: string, target: string): boolean {
  const relative = path.relative(folder, target);
  if (relative === '') return true;
  if (path.isAbsolute(relative)) return false;
  return relative !== '..' && !relative.startsWith(`..${path.sep}`);
}
