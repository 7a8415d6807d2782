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
  // One shell per step, running the git commands of that step: each process this one starts costs a fork of its heap.
  const sh = (script: string, ...args: string[]) => run('sh', ['-c', script, 'sh', ...args], { cwd: dir }).then((r) => r.stdout.trim());
  await sh('git init --quiet --initial-branch main && git config user.email test@example.com && git config user.name test && git config commit.gpgsign false');
  return {
    dir,
    async commit(files, message = 'change') {
      await writeTree(dir, files);
      return sh('git add --all && git commit --quiet --allow-empty -m "$1" && git rev-parse HEAD', message);
    },
  };
}
