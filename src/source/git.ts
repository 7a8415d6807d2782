import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import type { GitSourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import type { Checkout, Source } from './types.js';
import { redactCredentials, safeErrorMessage } from '../redact.js';

export interface GitSourceOptions {
  /** Source name; the checkout lives in `stateDir/<name>`. */
  name: string;
  git: GitSourceConfig;
  stateDir: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

/** Raised when git fails; the message never carries credentials of the URL. */
export class GitFetchError extends Error {
  override name = 'GitFetchError';
}

/** A git repository, fetched into `stateDir/<name>` at each checkout. */
export function gitSource(options: GitSourceOptions): Source {
  return {
    kind: 'git',
    checkout: (signal) => fetchCheckout(options, signal),
    watch: () => Promise.resolve(null),
  };
}

/**
 * Brings `stateDir/<name>` to the tip of `git.ref`: creates the repo on first use, fetches only that ref
 * (shallow), then hard-resets the work tree to the fetched commit and removes untracked files.
 */
async function fetchCheckout(options: GitSourceOptions, signal: AbortSignal | undefined): Promise<Checkout & { revision: string }> {
  const checkout = path.join(options.stateDir, options.name);
  const dir = path.resolve(checkout, options.git.path);
  if (dir !== checkout && !dir.startsWith(checkout + path.sep)) {
    throw new GitFetchError(`git.path "${options.git.path}" of source ${options.name} leaves the repository`);
  }
  const url = redactCredentials(options.git.url);
  try {
    const git = await openRepository(checkout, options, signal);
    await git.raw(['fetch', '--force', '--no-tags', '--depth', '1', 'origin', options.git.ref]);
    await git.raw(['reset', '--hard', '--quiet', 'FETCH_HEAD']);
    await git.raw(['clean', '-ffdxq']);
    const revision = (await git.revparse(['HEAD'])).trim();
    options.logger.debug({ source: options.name, url, ref: options.git.ref, revision }, 'git source fetched');
    return { dir, revision };
  } catch (error) {
    if (signal?.aborted === true) throw new GitFetchError(`git fetch of ${url} aborted: ${safeErrorMessage(signal.reason)}`);
    throw new GitFetchError(`git fetch of ${url} (ref ${options.git.ref}) failed: ${firstLines(safeErrorMessage(error))}`);
  }
}

async function openRepository(checkout: string, options: GitSourceOptions, signal: AbortSignal | undefined): Promise<SimpleGit> {
  await mkdir(checkout, { recursive: true });
  const git = simpleGit({ baseDir: checkout, ...(signal === undefined ? {} : { abort: signal }) }).env({
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
