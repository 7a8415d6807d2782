/** The one way tests write files: temp folders holding a tree of files, removed when the test or the suite ends. */
import { after, type TestContext } from 'node:test';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** A file's content, or a symbolic link to a target (relative to the link's folder, or absolute). */
export type TreeEntry = string | Buffer | { symlink: string };

/** Relative paths (with `/`) and what they hold. */
export type Tree = Record<string, TreeEntry>;

/** Writes `tree` under `dir`, creating folders; resolves with `dir`. */
export async function writeTree(dir: string, tree: Tree): Promise<string> {
  for (const [rel, entry] of Object.entries(tree)) {
    const abs = path.join(dir, ...rel.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    if (typeof entry === 'object' && 'symlink' in entry) await symlink(entry.symlink, abs);
    else await writeFile(abs, entry);
  }
  return dir;
}

async function newTree(tree: Tree, prefix: string): Promise<string> {
  return writeTree(await mkdtemp(path.join(os.tmpdir(), prefix)), tree);
}

/** A new temp folder holding `tree`, removed when the test `t` ends. */
export async function tempTree(t: TestContext, tree: Tree = {}, prefix = 'pps-'): Promise<string> {
  const dir = await newTree(tree, prefix);
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Inside a `describe`: a function that makes temp folders holding a tree; all are removed after the suite. */
export function useTempTrees(prefix = 'pps-'): (tree?: Tree) => Promise<string> {
  const dirs: string[] = [];
  after(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));
  return async (tree = {}) => {
    const dir = await newTree(tree, prefix);
    dirs.push(dir);
    return dir;
  };
}
