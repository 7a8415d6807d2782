import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { TestContext } from 'node:test';

const run = promisify(execFile);

/** A temp folder removed when the test ends. */
export async function tempDir(t: TestContext, prefix = 'pps-daemon-'): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes `files` (relative path → content) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    const target = path.join(root, file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

export interface TempGitRepo {
  dir: string;
  /** Writes the files, commits them on `main`, returns the commit sha. */
  commit(files: Record<string, string>, message?: string): Promise<string>;
}

export async function gitRepo(t: TestContext): Promise<TempGitRepo> {
  const dir = await tempDir(t, 'pps-git-');
  const git = (...args: string[]) => run('git', args, { cwd: dir }).then((r) => r.stdout.trim());
  await git('init', '--quiet', '--initial-branch', 'main');
  await git('config', 'user.email', 'test@example.com');
  await git('config', 'user.name', 'test');
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

/** Polls `probe` until it returns something other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A minimal declared repo: one native policy and one opa policy. */
export function declaredTree(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'policies/require-tags.native': 'main = rule { true }\n',
    'policies/require-tags.yaml': 'description: Tags are required.\nenforcement-level: hard-mandatory\n',
    'policies/opa/deny-public.rego': 'package s3\n\ndeny contains "x" if { false }\n',
    'policies/opa/deny-public.yaml': 'query: data.s3.deny\n',
    ...extra,
  };
}
