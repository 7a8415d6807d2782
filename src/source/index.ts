import type { SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { gitSource } from './git.js';
import { localSource } from './local.js';
import type { Source } from './types.js';

export { safeErrorMessage } from '../redact.js';
export type { Checkout, Source, SourceWatch } from './types.js';

export interface SourceContext {
  /** Git checkouts live in `stateDir/git/<source name>`; a local folder's git must track nothing in it. */
  stateDir: string;
  /** The environment git runs with (credential helpers, SSH settings). */
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

export function openSource(config: SourceConfig, context: SourceContext): Source {
  if (config.git !== null) return gitSource({ name: config.name, git: config.git, ...context });
  return localSource(config.path ?? '.', context.stateDir);
}
