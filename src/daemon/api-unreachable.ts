import { checkReachable } from '../api/reachable.js';
import { UnreachableError } from '../errors.js';
import { proxySettings } from '../http/proxy.js';
import type { Logger } from '../logger.js';
import { createRedactor, secretsInUrl } from '../redact.js';

/** How long the check may wait for a connection: a slow API is the requests' business, not this check's. */
const CHECK_TIMEOUT_MS = 3_000;

/**
 * After a pass that did not reach the API: when the API cannot be reached at all (the name does not resolve, the
 * connection is refused, the TLS handshake fails), one warning naming the URL and what to check. The daemon keeps
 * retrying, since a network blip is normal for a long-running process; a one-shot run fails at once instead
 * (see cli/one-shot.ts). Any other answer (a slow or failing API) logs nothing here: the requests' logs say it.
 */
export async function warnIfUnreachable(url: string, logger: Logger, env: NodeJS.ProcessEnv): Promise<void> {
  if (!/^https?:\/\//.test(url)) return;
  try {
    await checkReachable(url, CHECK_TIMEOUT_MS, proxySettings(env));
  } catch (error) {
    if (!(error instanceof UnreachableError)) return;
    logger.warn({ url: createRedactor(secretsInUrl(url))(url) }, `${error.message}; retrying on the next pass`);
  }
}
