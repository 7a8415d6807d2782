import { after } from 'node:test';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { ValidationError, type SourceProblem } from '../../src/errors.js';

/** Real-world declared repos kept in the repository (see its SOURCES.md). */
export const CORPUS = path.resolve(import.meta.dirname, '../fixtures/corpus');

/** A file's content, or a symbolic link to a target (relative to the link's folder, or absolute). */
export type TreeEntry = string | Buffer | { symlink: string };

/** A temp folder holding `tree` (paths with `/`); remove it with `cleanup`. */
export interface TempTree {
  dir: string;
  cleanup(): Promise<void>;
}

export async function writeTree(tree: Record<string, TreeEntry>, parent?: string): Promise<TempTree> {
  const dir = parent ?? (await mkdtemp(path.join(os.tmpdir(), 'declared-')));
  for (const [rel, entry] of Object.entries(tree)) {
    const abs = path.join(dir, ...rel.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    if (typeof entry === 'object' && 'symlink' in entry) await symlink(entry.symlink, abs);
    else await writeFile(abs, entry);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Awaits a read that must fail with a ValidationError and returns its problems. */
export async function problemsOf(read: Promise<unknown>): Promise<SourceProblem[]> {
  try {
    await read;
  } catch (error) {
    assert.ok(error instanceof ValidationError, `expected a ValidationError, got ${String(error)}`);
    return error.problems;
  }
  assert.fail('expected the read to fail with a ValidationError');
}

/** The one problem about `file`; fails when there is none or more than one. */
export function problemFor(problems: readonly SourceProblem[], file: string): SourceProblem {
  const found = problems.filter((problem) => problem.file === file);
  assert.equal(found.length, 1, `expected one problem for ${file}, got: ${JSON.stringify(problems, null, 1)}`);
  return found[0] as SourceProblem;
}

/** Inside a `describe`: a function that writes a temp tree and returns its folder; every tree is removed after the suite. */
export function useTrees(): (files: Record<string, TreeEntry>) => Promise<string> {
  const trees: TempTree[] = [];
  after(async () => {
    await Promise.all(trees.map((tree) => tree.cleanup()));
  });
  return async (files) => {
    const tree = await writeTree(files);
    trees.push(tree);
    return tree.dir;
  };
}
