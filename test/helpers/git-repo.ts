import { execFile } from 'node:child_process';
import type { TestContext } from 'node:test';
import { promisify } from 'node:util';
import { tempTree, writeTree, type Tree } from './temp-tree.js';

const run = promisify(execFile);

export interface TempGitRepo {
  dir: string;
  /** Writes the files, commits everything on `main`, resolves with the commit sha. */
  commit(files: Tree, message?: string): Promise<string>;
}

/** A real git repository in a temp folder (branch `main`, no commit yet), removed when the test ends. */
export async function gitRepo(t: TestContext): Promise<TempGitRepo> {
  const dir = await tempTree(t, {}, 'pps-git-');
  const git = (...args: string[]) => run('git', args, { cwd: dir }).then((r) => r.stdout.trim());
  await git('init', '--quiet', '--initial-branch', 'main');
  await git('config', 'user.email', 'test@example.com');
  await git('config', 'user.name', 'test');
  await git('config', 'commit.gpgsign', 'false');
  return {
    dir,
    async commit(files, message = 'change') {
      await writeTree(dir, files);
      await git('add', '--all');
      await git('commit', '--quiet', '--allow-empty', '-m', message);
      return git('rev-parse', 'HEAD');
    },
  };
}
