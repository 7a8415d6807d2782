import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { SimpleGit } from 'simple-git';
import { createPathFilter, loadPathFilter, type PathFilter } from '../declared/path-filter.js';
import { ValidationError, type SourceProblem } from '../errors.js';
import { count } from '../plural.js';

/** The folders of the declared tree that are read whole; a submodule in them hides policies or pools. */
const READ_FOLDERS = ['policies', 'policy-sets', 'agent-pools'];

/**
 * Checks what a fetched checkout holds before it is read: the declared tree (`git.path`) must stay inside the
 * checkout once symbolic links are resolved (a repo committing `decl -> ../other-source` would otherwise be read as
 * another source's files), and no submodule (gitlink) may sit in the declared tree unless the read leaves it out
 * (`.syncignore`): submodules are not fetched, so what they declare would count as undeclared and be pruned.
 * @throws ValidationError naming the path.
 */
export async function checkCheckout(git: SimpleGit, checkout: string, dir: string, gitPath: string): Promise<void> {
  const problems = [...(await escapeProblems(checkout, dir, gitPath)), ...(await submoduleProblems(git, checkout, dir))];
  if (problems.length === 0) return;
  const summary = `The declared repo ${dir} has ${count(problems.length, 'problem')}:`;
  throw new ValidationError([summary, ...problems.map((p) => `  ${p.file}: ${p.message}`)].join('\n'), problems);
}

async function escapeProblems(checkout: string, dir: string, gitPath: string): Promise<SourceProblem[]> {
  let real: string;
  try {
    real = await realpath(dir);
  } catch {
    return []; // A missing folder: the read reports it.
  }
  const root = await realpath(checkout);
  if (real === root || real.startsWith(root + path.sep)) return [];
  const message = `git.path "${gitPath}" resolves outside the repository's checkout (through a symbolic link in the repo); point git.path at a real folder of the repo`;
  return [{ file: gitPath, message }];
}

/** Whether `rel` (a folder of the declared tree) or a folder above it is left out by the built-in rules or `.syncignore`. */
function leftOut(filter: PathFilter, rel: string): boolean {
  const segments = rel.split('/');
  return segments.some((_, i) => filter.isIgnored(segments.slice(0, i + 1).join('/'), true));
}

/**
 * Every submodule (gitlink) of the declared tree that the read would not leave out. Under the folders read it hides
 * policies or pools; anywhere else it may hide a policy set's folder (a set sits wherever its config file does). Either
 * way what it declares would count as undeclared, and be pruned.
 */
async function submoduleProblems(git: SimpleGit, checkout: string, dir: string): Promise<SourceProblem[]> {
  const base = path.relative(checkout, dir).split(path.sep).join('/');
  const staged = await git.raw(['ls-files', '--stage', '-z', '--', base === '' ? '.' : base]);
  let filter: PathFilter | null = null;
  const problems: SourceProblem[] = [];
  for (const entry of staged.split('\0')) {
    const match = /^160000 [0-9a-f]+ \d\t(.+)$/.exec(entry);
    if (match === null) continue;
    const rel = path.posix.relative(base === '' ? '.' : base, match[1] as string);
    if (READ_FOLDERS.some((folder) => rel.startsWith(`${folder}/`))) {
      problems.push({ file: rel, message: 'is a git submodule; submodules are not fetched, so what it declares would be missing (and pruned): move its files into the repo' });
      continue;
    }
    // A .syncignore that cannot be read is reported by the read; here the built-in rules stand alone.
    filter ??= filterOf(dir);
    if (leftOut(filter, rel)) continue;
    problems.push({
      file: rel,
      message: 'is a git submodule; submodules are not fetched, so a policy set in it would be missing (and pruned): move its files into the repo, or leave it out in .syncignore',
    });
  }
  return problems;
}

function filterOf(dir: string): PathFilter {
  try {
    const loaded = loadPathFilter(dir, realpathSync(dir));
    return 'filter' in loaded ? loaded.filter : createPathFilter(null);
  } catch {
    return createPathFilter(null);
  }
}
