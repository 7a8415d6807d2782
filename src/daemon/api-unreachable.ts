import { checkReachable } from '../api/reachable.js';
import { UnreachableError } from '../errors.js';
import { proxySettings } from '../http/proxy.js';
import type { Logger } from '../logger.js';
import { createRedactor, secretsInUrl } from '../redact.js';

/** How long the check may wait for a connection: a slow API is the requests' business, not this check's. */
const CHECK_TIMEOUT_MS = 3_000;

/** Failures of a request that never reached a server: the name, the route or the port is wrong, or nothing listens. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/** What the API client's `onRequest` tells of each request (api/client.ts). */
export interface RequestSeen {
  status: number | 'error';
  /** The failure's code when there was no answer. */
  error?: string;
}

/** Whether the daemon can reach its API, as its requests find it. */
export interface ApiReachWatch {
  /** Fed from the API client's `onRequest`. */
  observe(request: RequestSeen): void;
  /** Why the API cannot be reached now (naming its URL and what to check), or null. */
  problem(): string | null;
}

/**
 * At the first request that cannot connect, one check of the API's URL (`api/reachable.ts`): when the name does not
 * resolve, the connection is refused or the TLS handshake fails, one warning naming the URL, its host and what to
 * check, and `problem()` says so for `/status` and `/readyz` until the API answers again (said once at info). The
 * daemon keeps retrying, since a network blip is normal for a long-running process; a one-shot run fails at once
 * instead (see cli/one-shot.ts). A slow or failing API that does answer is the requests' own logs' business.
 */
export function watchApiReach(url: string, logger: Logger, env: NodeJS.ProcessEnv): ApiReachWatch {
  let problem: string | null = null;
  let checking = false;
  const shown = createRedactor(secretsInUrl(url))(url);
  const host = /^https?:\/\//.test(url) ? new URL(url).host : null;
  async function check(): Promise<void> {
    checking = true;
    try {
      await checkReachable(url, CHECK_TIMEOUT_MS, proxySettings(env));
    } catch (error) {
      if (!(error instanceof UnreachableError) || problem !== null) return;
      problem = error.message;
      logger.warn({ url: shown, host }, `${error.message}; the daemon keeps retrying`);
    } finally {
      checking = false;
    }
  }
  return {
    observe(request) {
      if (host === null) return;
      if (request.status !== 'error') {
        if (problem !== null) logger.info({ url: shown, host }, 'the API answers again');
        problem = null;
        return;
      }
      if (problem === null && !checking && NOT_CONNECTED.has(request.error ?? '')) void check();
    },
    problem: () => problem,
  };
}
