import { lstat, readdir, readlink, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';
import type { SourceProblem } from '../errors.js';
import type { PathFilter } from './path-filter.js';

/** A file of the source that may declare something. */
export interface FoundFile {
  /** Relative to the source root, with `/` separators. */
  rel: string;
  abs: string;
  size: number;
}

export interface WalkOptions {
  /** Absolute path of the source root as given. */
  root: string;
  /** The root with every symbolic link resolved; link targets must stay under it. */
  realRoot: string;
  filter: PathFilter;
  /** Which files to collect. */
  wanted(rel: string): boolean;
  /** Folders below the start folder to descend into; 0 reads only its files. */
  maxDepth: number;
}

interface Walk extends WalkOptions {
  files: FoundFile[];
  problems: SourceProblem[];
}

/**
 * Lists the wanted files under `start` (a folder relative to the root). Follows symbolic links that stay inside the
 * root and reports those that leave it, dangle or loop. A missing start folder lists nothing.
 */
export async function walkFolder(start: string, options: WalkOptions): Promise<{ files: FoundFile[]; problems: SourceProblem[] }> {
  const walk: Walk = { ...options, files: [], problems: [] };
  await visit(walk, start, 0, new Set([options.realRoot]));
  walk.files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return { files: walk.files, problems: walk.problems };
}

async function visit(walk: Walk, rel: string, depth: number, ancestors: ReadonlySet<string>): Promise<void> {
  const abs = path.join(walk.root, ...rel.split('/'));
  const entry = await inspect(abs);
  if (entry === null) return;
  if (entry.kind === 'broken') {
    if (walk.wanted(rel)) walk.problems.push({ file: rel, message: 'is a symbolic link to a missing file' });
    return;
  }
  const isDirectory = entry.stats.isDirectory();
  if (walk.filter.isIgnored(rel, isDirectory)) return;
  if (!isDirectory && (!entry.stats.isFile() || !walk.wanted(rel))) return;
  if (entry.real !== null && !isInside(walk.realRoot, entry.real)) {
    const target = await readlink(abs);
    walk.problems.push({ file: rel, message: `is a symbolic link to ${target}, outside the source root; move the target into the repo` });
    return;
  }
  if (!isDirectory) {
    walk.files.push({ rel, abs, size: entry.stats.size });
    return;
  }
  const real = entry.real ?? (await realpath(abs));
  if (ancestors.has(real)) {
    walk.problems.push({ file: rel, message: 'is a symbolic link to one of its own parent folders' });
    return;
  }
  if (depth > walk.maxDepth) return;
  const names = await readdir(abs);
  const below = new Set(ancestors).add(real);
  await Promise.all(names.map((name) => visit(walk, `${rel}/${name}`, depth + 1, below)));
}

type Entry = { kind: 'found'; stats: Stats; real: string | null } | { kind: 'broken' };

/** Stats a path, following a symbolic link; `real` is set only for links. Null when nothing is there. */
async function inspect(abs: string): Promise<Entry | null> {
  let own: Stats;
  try {
    own = await lstat(abs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (!own.isSymbolicLink()) return { kind: 'found', stats: own, real: null };
  try {
    const real = await realpath(abs);
    return { kind: 'found', stats: await stat(real), real };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') return { kind: 'broken' };
    throw error;
  }
}

function isInside(root: string, target: string): boolean {
  return target === root || target.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}
