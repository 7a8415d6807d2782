import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import type { GitSourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { redactCredentials, safeErrorMessage } from './redact.js';

export interface GitCheckout {
  /** Folder holding the declared tree: the checkout joined with `git.path`. */
  dir: string;
  /** The commit checked out. */
  revision: string;
}

export interface GitSyncOptions {
  /** Source name; the checkout lives in `stateDir/<name>`. */
  name: string;
  git: GitSourceConfig;
  stateDir: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** Aborts a running git command (the pass timed out). */
  signal?: AbortSignal;
}

/** Raised when git fails; the message never carries credentials of the URL. */
export class GitSyncError extends Error {
  override name = 'GitSyncError';
}

/**
 * Brings `stateDir/<name>` to the tip of `git.ref`: creates the repo on first use, fetches only that ref
 * (shallow), then hard-resets the work tree to the fetched commit and removes untracked files.
 */
export async function syncGitSource(options: GitSyncOptions): Promise<GitCheckout> {
  const checkout = path.join(options.stateDir, options.name);
  const dir = path.resolve(checkout, options.git.path);
  if (dir !== checkout && !dir.startsWith(checkout + path.sep)) {
    throw new GitSyncError(`git.path "${options.git.path}" of source ${options.name} leaves the repository`);
  }
  const url = redactCredentials(options.git.url);
  try {
    const git = await openRepository(checkout, options);
    await git.raw(['fetch', '--force', '--no-tags', '--depth', '1', 'origin', options.git.ref]);
    await git.raw(['reset', '--hard', '--quiet', 'FETCH_HEAD']);
    await git.raw(['clean', '-ffdxq']);
    const revision = (await git.revparse(['HEAD'])).trim();
    options.logger.debug({ source: options.name, url, ref: options.git.ref, revision }, 'git source fetched');
    return { dir, revision };
  } catch (error) {
    if (options.signal?.aborted === true) throw new GitSyncError(`git fetch of ${url} aborted: ${safeErrorMessage(options.signal.reason)}`);
    throw new GitSyncError(`git fetch of ${url} (ref ${options.git.ref}) failed: ${firstLines(safeErrorMessage(error))}`);
  }
}

async function openRepository(checkout: string, options: GitSyncOptions): Promise<SimpleGit> {
  await mkdir(checkout, { recursive: true });
  const git = simpleGit({ baseDir: checkout, ...(options.signal === undefined ? {} : { abort: options.signal }) }).env({
    ...options.env,
    GIT_TERMINAL_PROMPT: '0',
  });
  if (!existsSync(path.join(checkout, '.git'))) {
    await git.init();
    await git.addRemote('origin', options.git.url);
    options.logger.info({ source: options.name, url: redactCredentials(options.git.url), checkout }, 'git source initialised');
    return git;
  }
  await git.remote(['set-url', 'origin', options.git.url]);
  return git;
}

function firstLines(text: string): string {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '').slice(0, 3).join(' ');
}
