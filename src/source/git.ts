import { existsSync } from 'node:fs';
import path from 'node:path';
import { simpleGit, type SimpleGit } from 'simple-git';
import type { GitSourceConfig } from '../config/types.js';
import { errorMessage, GitFetchError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Checkout, Source } from './types.js';
import { makeStateDir, stateDirLayout } from '../state-dir.js';
import { checkCheckout } from './checkout-checks.js';
import { gitRemote, type GitRemote } from './git-remote.js';
import { gitProxyEnv, proxySettings } from '../http/proxy.js';

export interface GitSourceOptions {
  /** Source name; the checkout lives in `stateDir/git/<name>`. */
  name: string;
  git: GitSourceConfig;
  stateDir: string;
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

/** A git repository, fetched into `stateDir/git/<name>` at each checkout. */
export function gitSource(options: GitSourceOptions): Source {
  return {
    kind: 'git',
    checkout: (signal) => fetchCheckout(options, signal),
    watch: () => Promise.resolve(null),
  };
}

/**
 * Brings `stateDir/git/<name>` to the tip of `git.ref`: creates the repo on first use, fetches only that ref
 * (shallow), then hard-resets the work tree to the fetched commit and removes untracked files.
 */
async function fetchCheckout(options: GitSourceOptions, signal: AbortSignal | undefined): Promise<Checkout & { revision: string }> {
  const checkout = stateDirLayout(options.stateDir).checkout(options.name);
  const dir = path.resolve(checkout, options.git.path);
  if (dir !== checkout && !dir.startsWith(checkout + path.sep)) {
    throw new GitFetchError(`git.path "${options.git.path}" of source ${options.name} leaves the repository`);
  }
  const remote = gitRemote(options.git.url, options.env);
  const url = remote.display;
  const safe = (error: unknown) => remote.redact(errorMessage(error));
  let fetched: { git: SimpleGit; revision: string };
  try {
    const git = await openRepository(checkout, options, remote, signal);
    await git.raw(['fetch', '--force', '--no-tags', '--depth', '1', 'origin', options.git.ref]);
    await git.raw(['reset', '--hard', '--quiet', 'FETCH_HEAD']);
    await git.raw(['clean', '-ffdxq']);
    const revision = (await git.revparse(['HEAD'])).trim();
    options.logger.debug({ source: options.name, url, ref: options.git.ref, revision }, 'git source fetched');
    fetched = { git, revision };
  } catch (error) {
    if (signal?.aborted === true) throw new GitFetchError(`git fetch of ${url} aborted: ${safe(signal.reason)}`);
    throw new GitFetchError(`git fetch of ${url} (ref ${options.git.ref}) failed: ${firstLines(safe(error))}`);
  }
  await checkCheckout(fetched.git, checkout, dir, options.git.path);
  return { dir, revision: fetched.revision };
}

/**
 * The checkout's repository, its remote set to the URL without credentials (which also clears them from a checkout
 * an older version wrote). The credentials reach git through the environment (`remote.env`). The environment is the
 * operator's, not the repo's, so simple-git's refusal of variables that change what git runs or reads (`GIT_CONFIG_*`,
 * `GIT_SSH_COMMAND`, `GIT_ASKPASS`, `EDITOR`, `PAGER`) is lifted: a credential helper, an SSH key or an editor set in
 * the container would otherwise fail every fetch. The arguments are the tool's own.
 */
async function openRepository(checkout: string, options: GitSourceOptions, remote: GitRemote, signal: AbortSignal | undefined): Promise<SimpleGit> {
  await makeStateDir(checkout);
  const git = simpleGit({
    baseDir: checkout,
    unsafe: UNSAFE_ENV_ALLOWED,
    ...(signal === undefined ? {} : { abort: signal }),
  }).env(gitEnv(options.env, remote));
  if (!existsSync(path.join(checkout, '.git'))) {
    await git.init();
    await git.addRemote('origin', remote.url);
    options.logger.info({ source: options.name, url: remote.display, checkout }, 'git source initialised');
    return git;
  }
  await git.remote(['set-url', 'origin', remote.url]);
  return git;
}

/**
 * git's environment: the operator's, the remote's credential helper, and the proxy the API client would use for the
 * remote's URL (http/proxy.ts decides it once for both: NO_PROXY's CIDR ranges and loopback, either case of the
 * variables), given to git as its own `http.proxy`.
 */
function gitEnv(env: NodeJS.ProcessEnv, remote: GitRemote): NodeJS.ProcessEnv {
  const configured = Number.parseInt(remote.env['GIT_CONFIG_COUNT'] ?? env['GIT_CONFIG_COUNT'] ?? '0', 10) || 0;
  return { ...env, ...remote.env, ...gitProxyEnv(remote.url, proxySettings(env), configured), GIT_TERMINAL_PROMPT: '0' };
}

const UNSAFE_ENV_ALLOWED = {
  allowUnsafeConfigEnvCount: true,
  // The tool's own helper (git-remote.ts), which answers a URL's credentials for its origin only.
  allowUnsafeCredentialHelper: true,
  allowUnsafeConfigPaths: true,
  allowUnsafeSshCommand: true,
  allowUnsafeAskPass: true,
  allowUnsafeEditor: true,
  allowUnsafePager: true,
} as const;

function firstLines(text: string): string {
  return text.split('\n').map((l) => l.trim()).filter((l) => l !== '').slice(0, 3).join(' ');
}
