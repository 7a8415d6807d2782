import { access, realpath } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit } from 'simple-git';
import { UsageError } from '../errors.js';
import { isInside } from '../path-inside.js';

/**
 * Refuses a state dir that the declared repo's own git work tree tracks files in: what a pull request commits there
 * (a forged evidence or code cache, a history) must never be read as the tool's own state. The state dir is the
 * operator's: the caches it holds are sealed (`state-seal.ts`) so that a copy of such files is a miss anyway, and a
 * state dir the repo carries is refused outright, naming it, the files and the fix. An untracked state dir inside the
 * checkout (a cache CI restores there) is allowed. git runs only when the state dir lies inside the work tree.
 */
export async function refuseStateDirInRepo(dir: string, stateDir: string): Promise<void> {
  const root = await workTreeRoot(dir);
  if (root === null) return;
  const state = await realpath(stateDir).catch(() => null);
  if (state === null || !isInside(root, state)) return;
  const inside = path.relative(root, state).split(path.sep).join('/');
  let tracked: string[];
  try {
    const git = simpleGit({ baseDir: root, timeout: { block: 10_000 } });
    tracked = (await git.raw(['ls-files', '-z', '--', inside === '' ? '.' : `:(literal)${inside}`])).split('\0').filter((f) => f !== '');
  } catch {
    return;
  }
  if (tracked.length === 0) return;
  const shown = tracked.slice(0, 3).join(', ') + (tracked.length > 3 ? `, and ${tracked.length - 3} more` : '');
  throw new UsageError(
    `the state dir ${stateDir} is inside the repo's git work tree ${root}, and git tracks ${tracked.length} file(s) in it (${shown}): `
      + 'the state dir is the tool\'s own, never the repo\'s, and a repo\'s files there could change what a plan says. '
      + 'Point --state-dir (STATE_DIR, state-dir) at a folder outside the checkout, or remove those files from the repo '
      + `(git rm -r --cached ${inside === '' ? '.' : inside}) and ignore the folder`,
  );
}

/** The nearest folder holding `.git` (a folder, or a file for a linked work tree) from `dir` up, as a real path; null outside one. */
async function workTreeRoot(dir: string): Promise<string | null> {
  let folder = await realpath(dir).catch(() => null);
  if (folder === null) return null;
  for (; ; folder = path.dirname(folder)) {
    try {
      await access(path.join(folder, '.git'));
      return folder;
    } catch {
      if (path.dirname(folder) === folder) return null;
    }
  }
}
