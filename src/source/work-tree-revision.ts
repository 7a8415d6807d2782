import path from 'node:path';
import { simpleGit } from 'simple-git';

/**
 * The commit checked out in the git work tree holding `dir`, with `-dirty` when files under `dir` differ from it
 * (changed, added or untracked); null outside a work tree, or without git. For `--source-dir`, so that a plan says
 * what it was made from. git runs through simple-git, as for git sources, bounded to 10 s.
 * `own` are the tool's own folders (the state dir): what they hold never makes the tree dirty, wherever they are.
 */
export async function workTreeRevision(dir: string, own: readonly string[] = []): Promise<string | null> {
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
