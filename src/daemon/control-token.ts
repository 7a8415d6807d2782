import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';

/** The environment variable holding the bearer token of the control endpoints (`POST /sources/<name>/...`). */
export const CONTROL_TOKEN_ENV = 'CONTROL_TOKEN';

/** The control token, or null when unset: the control endpoints then answer 403 to everyone. */
export function controlToken(env: NodeJS.ProcessEnv, logger: Logger): string | null {
  const value = env[CONTROL_TOKEN_ENV];
  if (value === undefined || value === '') {
    logger.info(`the control endpoints (sync, suspend, resume) are disabled: set ${CONTROL_TOKEN_ENV} to enable them`);
    return null;
  }
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new UsageError(`${CONTROL_TOKEN_ENV} holds a space, a line break, a control or a non-ASCII character: set it to printable ASCII only`);
  }
  return value;
}
