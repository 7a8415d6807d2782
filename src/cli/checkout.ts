import type { Config, SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';

export interface Checkout {
  dir: string;
  revision: string | null;
}

/** The folder a one-shot pass reads: the local path, or a fresh fetch of the git source. */
export async function checkoutSource(source: SourceConfig, config: Config, logger: Logger): Promise<Checkout> {
  if (source.path !== null) return { dir: source.path, revision: null };
  throw new Error(`source ${source.name}: git sources are not supported in one-shot mode yet (${config.stateDir})`);
  void logger;
}
