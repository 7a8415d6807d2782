import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * The commit checked out in the git work tree holding `dir`, with `-dirty` when files under `dir` differ from it
 * (changed, added or untracked); null outside a work tree, or without git. For `--source-dir`, so that a plan says
 * what it was made from.
 */
export async function workTreeRevision(dir: string): Promise<string | null> {
  const git = async (...args: string[]) => (await run('git', ['-C', dir, ...args], { timeout: 10_000, maxBuffer: 64 * 1024 * 1024 })).stdout;
  try {
    const head = (await git('rev-parse', '--verify', '--quiet', 'HEAD')).trim();
    if (!/^[0-9a-f]{40,64}$/.test(head)) return null;
    const changes = await git('status', '--porcelain', '--untracked-files=normal', '--', '.');
    return changes.trim() === '' ? head : `${head}-dirty`;
  } catch {
    return null;
  }
}
