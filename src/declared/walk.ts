import { readdirSync, readlinkSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import type { SourceProblem } from '../errors.js';
import type { PathFilter } from './path-filter.js';
import { isInside } from '../path-inside.js';
import { unreadable } from './read-file.js';
import { turnTaker } from './turns.js';
import { byCodeUnit } from '../order.js';

/** A file of the source that may declare something. */
export interface FoundFile {
  /** Relative to the source root, with `/` separators. */
  rel: string;
  abs: string;
  /** The real path the walk resolved it to. */
  real: string;
  size: number;
  /** Size, modification time, change time and inode: equal stamps mean an unchanged file. */
  stamp: string;
}

/** How much of a repo the walk looks at before it gives up with a clear error. */
export interface WalkLimits {
  /** Folders read (each real folder once). @default 50000 */
  maxDirectories: number;
  /** Entries (files, folders, links) seen in those folders. @default 500000 */
  maxEntries: number;
}

export const DEFAULT_WALK_LIMITS: WalkLimits = { maxDirectories: 50_000, maxEntries: 500_000 };

export interface WalkOptions {
  /** Absolute path of the source root as given. */
  root: string;
  /** The root with every symbolic link resolved; link targets must stay under it. */
  realRoot: string;
  filter: PathFilter;
  limits: WalkLimits;
  signal?: AbortSignal;
}

/** What a walk found: candidate files, and problems and warnings about files that are not what they look like. */
export interface Walked {
  files: FoundFile[];
  problems: SourceProblem[];
  warnings: string[];
}

/** Which paths a folder's walk collects, and which near-misses it reports. */
export interface FolderRules {
  /** The folder, relative to the root; `''` is the root itself. */
  start: string;
  /** Folders below the start folder to descend into; 0 reads only its files. */
  maxDepth: number;
  wanted(rel: string): boolean;
  /** A problem or warning for a file that is not collected but looks meant to be; null when it is simply not ours. */
  nearMiss(rel: string): { problem: string } | { warning: string } | null;
}

/** Entries handled between two turns of the event loop, so a daemon keeps answering while a big repo is read. */
const YIELD_EVERY = 100;

interface Folder {
  rel: string;
  abs: string;
  /** Real path of the folder. */
  real: string;
  depth: number;
}

/**
 * Lists the candidate files under each folder of `folders` (relative to the root). Each real folder is read once, so
 * links that reach a folder twice (or loop) cost nothing more: they are reported. Follows symbolic links that stay
 * inside the root and reports those that leave it or dangle. A missing start folder lists nothing. Stops with a
 * problem past `limits`.
 */
export async function walkSource(folders: readonly FolderRules[], options: WalkOptions): Promise<Walked> {
  const walked: Walked = { files: [], problems: [], warnings: [] };
  const seen = new Map<string, string>([[options.realRoot, '.']]);
  let directories = 0;
  let entries = 0;
  const turn = turnTaker(YIELD_EVERY, options.signal);
  for (const rules of folders) {
    const startAbs = rules.start === '' ? options.root : path.join(options.root, ...rules.start.split('/'));
    const start = inspect(options, rules, { rel: rules.start, abs: startAbs, real: startAbs, dirent: null }, walked);
    if (start === null || !start.isDirectory) continue;
    const stack: Folder[] = [{ rel: rules.start, abs: start.abs, real: start.real, depth: 0 }];
    seen.set(start.real, rules.start);
    while (stack.length > 0) {
      const folder = stack.pop() as Folder;
      directories += 1;
      if (directories > options.limits.maxDirectories) return overLimit(walked, `more than ${options.limits.maxDirectories} folders`);
      let names: Dirent[];
      try {
        names = readdirSync(folder.abs, { withFileTypes: true });
      } catch (error) {
        walked.problems.push(unreadable(folder.rel, error));
        continue;
      }
      names.sort((a, b) => byCodeUnit(b.name, a.name));
      for (const dirent of names) {
        entries += 1;
        if (entries > options.limits.maxEntries) return overLimit(walked, `more than ${options.limits.maxEntries} files and folders`);
        await turn();
        const rel = folder.rel === '' ? dirent.name : `${folder.rel}/${dirent.name}`;
        const entry = { rel, abs: path.join(folder.abs, dirent.name), real: path.join(folder.real, dirent.name), dirent };
        const found = inspect(options, rules, entry, walked);
        if (found === null || !found.isDirectory) continue;
        if (folder.depth >= rules.maxDepth) continue;
        const first = seen.get(found.real);
        if (first !== undefined) {
          walked.problems.push({ file: rel, message: repeatMessage(folder.real, found.real, first) });
          continue;
        }
        seen.set(found.real, rel);
        stack.push({ rel, abs: found.abs, real: found.real, depth: folder.depth + 1 });
      }
    }
  }
  walked.files.sort((a, b) => byCodeUnit(a.rel, b.rel));
  return walked;
}

function repeatMessage(parentReal: string, real: string, first: string): string {
  if (isInside(real, parentReal)) return 'is a symbolic link to one of its own parent folders';
  return `is a symbolic link to a folder already read as ${first}; each folder is read once, so remove one of the links`;
}

function overLimit(walked: Walked, what: string): Walked {
  const message = `the repo holds ${what} under policies/ and agent-pools/; nothing was read. Leave folders out with .syncignore`;
  return { files: [], problems: [...walked.problems, { file: '.', message }], warnings: walked.warnings };
}

interface Entry {
  rel: string;
  /** The path to read it by, through the root as given. */
  abs: string;
  /** Its real path when it is not a link itself: the real folder joined with its name. */
  real: string;
  /** From the folder listing; null for a start folder, which is always resolved. */
  dirent: Dirent | null;
}

/**
 * Looks at one entry: a collected file is added to `walked`, a problem or warning recorded, and a folder to descend
 * into returned with its real path. The listing's entry types spare a stat for plain folders and unwanted files.
 */
function inspect(options: WalkOptions, rules: FolderRules, entry: Entry, walked: Walked): { isDirectory: boolean; abs: string; real: string } | null {
  const { rel, abs, dirent } = entry;
  if (dirent !== null && dirent.isDirectory()) {
    return options.filter.isIgnored(rel, true) ? null : { isDirectory: true, abs, real: entry.real };
  }
  if (dirent !== null && !dirent.isSymbolicLink() && !interesting(rules, rel)) return null;
  let stats: Stats;
  let real = entry.real;
  try {
    if (dirent === null || dirent.isSymbolicLink()) real = realpathSync.native(abs);
    stats = statSync(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (dirent === null && code === 'ENOENT') return null;
    if (code === 'ENOENT' || code === 'ELOOP') {
      if (rules.wanted(rel)) walked.problems.push({ file: rel, message: 'is a symbolic link to a missing file' });
      return null;
    }
    walked.problems.push(unreadable(rel, error));
    return null;
  }
  const isDirectory = stats.isDirectory();
  if (options.filter.isIgnored(rel, isDirectory)) return null;
  if (!isDirectory && !interesting(rules, rel)) return null;
  if (!isInside(options.realRoot, real)) {
    walked.problems.push({ file: rel, message: `is a symbolic link to ${readlinkSync(abs)}, outside the source root; move the target into the repo` });
    return null;
  }
  if (isDirectory) return { isDirectory, abs, real };
  if (!stats.isFile()) {
    walked.problems.push({ file: rel, message: 'is not a regular file (a FIFO, socket or device); it must be a plain file' });
    return null;
  }
  if (rules.wanted(rel)) {
    walked.files.push({ rel, abs, real, size: stats.size, stamp: `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}` });
    return null;
  }
  const miss = rules.nearMiss(rel);
  if (miss !== null && 'problem' in miss) walked.problems.push({ file: rel, message: miss.problem });
  if (miss !== null && 'warning' in miss) walked.warnings.push(`${rel}: ${miss.warning}`);
  return null;
}

function interesting(rules: FolderRules, rel: string): boolean {
  return rules.wanted(rel) || rules.nearMiss(rel) !== null;
}
