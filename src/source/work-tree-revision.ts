import { access } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit } from 'simple-git';

/**
 * The commit checked out in the git work tree holding `dir`, with `-dirty` when files under `dir` differ from it
 * (changed, added or untracked); null outside a work tree, or without git. For `--source-dir`, so that a plan says
 * what it was made from. git runs through simple-git, as for git sources, bounded to 10 s.
 * `own` are the tool's own folders (the state dir): what they hold never makes the tree dirty, wherever they are.
 * A folder with no `.git` in it or above it is outside any work tree: git is not started for it.
 */
export async function workTreeRevision(dir: string, own: readonly string[] = []): Promise<string | null> {
  if (!(await mayBeInWorkTree(dir))) return null;
  try {
    // simple-git refuses a folder that does not exist: that is null too.
    const git = simpleGit({ baseDir: dir, timeout: { block: 10_000 } });
    const head = (await git.raw(['rev-parse', '--verify', '--quiet', 'HEAD'])).trim();
    if (!/^[0-9a-f]{40,64}$/.test(head)) return null;
    const changes = await git.raw(['status', '--porcelain', '--untracked-files=all', '--', '.', ...excluded(dir, own)]);
    return changes.trim() === '' ? head : `${head}-dirty`;
  } catch {
    return null;
  }
}

/**
 * Whether git could find a work tree from `dir`: `.git` (a folder, or a file for a linked work tree or a submodule) in
 * `dir` or a folder above it. Starting git costs a process; most one-shot runs in CI are in a clone, but a folder
 * outside one (an unpacked artifact) is answered without it.
 */
async function mayBeInWorkTree(dir: string): Promise<boolean> {
  for (let folder = path.resolve(dir); ; folder = path.dirname(folder)) {
    try {
      await access(path.join(folder, '.git'));
      return true;
    } catch {
      if (path.dirname(folder) === folder) return false;
    }
  }
}

/** git pathspecs leaving out each of `own` that lies under `dir` (relative to it, as git reads them from there). */
function excluded(dir: string, own: readonly string[]): string[] {
  const specs: string[] = [];
  for (const folder of own) {
    const inside = path.relative(path.resolve(dir), path.resolve(folder));
    if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) continue;
    specs.push(`:(exclude,literal)${inside.split(path.sep).join('/')}`);
  }
  return specs;
}
