import type { Config, SourceConfig } from '../config/types.js';
import { syncGitSource } from '../daemon/git-source.js';
import type { Logger } from '../logger.js';

export interface Checkout {
  dir: string;
  revision: string | null;
}

/** The folder a one-shot pass reads: the local path, or the git source fetched into the state folder. */
export async function checkoutSource(source: SourceConfig, config: Config, logger: Logger, env: NodeJS.ProcessEnv): Promise<Checkout> {
  if (source.git === null) return { dir: source.path ?? '.', revision: null };
  return syncGitSource({ name: source.name, git: source.git, stateDir: config.stateDir, logger, env });
}
