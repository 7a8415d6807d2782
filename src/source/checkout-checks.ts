import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { SimpleGit } from 'simple-git';
import { ValidationError, type SourceProblem } from '../errors.js';
import { count } from '../plural.js';

/** The folders of the declared tree that are read; a submodule in them would hide what it declares. */
const READ_FOLDERS = ['policies', 'policy-sets', 'agent-pools'];

/**
 * Checks what a fetched checkout holds before it is read: the declared tree (`git.path`) must stay inside the
 * checkout once symbolic links are resolved (a repo committing `decl -> ../other-source` would otherwise be read as
 * another source's files), and no submodule (gitlink) may sit in the folders that are read: submodules are not
 * fetched, so their policies would count as undeclared and be pruned.
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

async function submoduleProblems(git: SimpleGit, checkout: string, dir: string): Promise<SourceProblem[]> {
  const base = path.relative(checkout, dir).split(path.sep).join('/');
  const prefixes = READ_FOLDERS.map((folder) => (base === '' ? folder : `${base}/${folder}`));
  const staged = await git.raw(['ls-files', '--stage', '-z', '--', ...prefixes]);
  const problems: SourceProblem[] = [];
  for (const entry of staged.split('\0')) {
    const match = /^160000 [0-9a-f]+ \d\t(.+)$/.exec(entry);
    if (match === null) continue;
    const rel = path.posix.relative(base === '' ? '.' : base, match[1] as string);
    const message = 'is a git submodule; submodules are not fetched, so what it declares would be missing (and pruned): move its files into the repo';
    problems.push({ file: rel, message });
  }
  return problems;
}
