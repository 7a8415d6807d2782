import { resolveToken } from '../config/token.js';
import type { Config } from '../config/types.js';
import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { proxyFor, proxySettings, shownProxy } from '../http/proxy.js';
import { ApiClient, type ApiClientOptions } from './client.js';
import { userAgent } from '../version.js';

export interface ApiClientSetup {
  /** `api.url`, `api.token-file`, `api.rate-limit`, `api.concurrency` and `api.legacy-enforce` are used. */
  config: Config;
  /** `API_TOKEN`, and HTTP_PROXY, HTTPS_PROXY and NO_PROXY, are read from here. */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** A URL and token known otherwise (the daemon's embedded emulator); by default the config's URL and its token. */
  endpoint?: { url: string; token: string };
  onRequest?: ApiClientOptions['onRequest'];
  onRateLimitWait?: ApiClientOptions['onRateLimitWait'];
  /** Leader election: keeps a request off the wire once this replica no longer holds the lease. */
  fence?: ApiClientOptions['fence'];
  /** Appended to the User-Agent: which replica sent a request. */
  instance?: string;
}

/** The API client a config asks for: its URL, the token from `API_TOKEN` or `api.token-file`, its pacing. */
export async function createApiClient(setup: ApiClientSetup): Promise<ApiClient> {
  const { config } = setup;
  let endpoint = setup.endpoint;
  if (endpoint === undefined) {
    if (config.api.url === 'embedded') {
      throw new UsageError('no API URL was given: pass --api-url URL (ending in /api/v2) or set API_BASE_URL (api.url "embedded" is an emulator only the daemon starts)');
    }
    endpoint = { url: config.api.url, token: await resolveToken(config, setup.env) };
  }
  // The embedded emulator listens on loopback in this process: never through a proxy.
  const proxy = setup.endpoint === undefined ? proxySettings(setup.env) : null;
  const via = proxy === null ? null : proxyFor(endpoint.url, proxy);
  if (via !== null) setup.logger.info({ proxy: shownProxy(via) }, 'api requests go through the proxy of HTTP_PROXY/HTTPS_PROXY');
  return new ApiClient({
    baseUrl: endpoint.url,
    token: endpoint.token,
    logger: setup.logger,
    rateLimit: config.api.rateLimit,
    concurrency: config.api.concurrency,
    legacyEnforce: config.api.legacyEnforce,
    nativeKind: config.api.nativeKind,
    retryBudgetMs: config.api.retryBudgetSeconds * 1000,
    ...(proxy === null ? {} : { proxy }),
    onRequest: setup.onRequest,
    onRateLimitWait: setup.onRateLimitWait,
    ...(setup.fence === undefined ? {} : { fence: setup.fence }),
    ...(setup.instance === undefined ? {} : { userAgent: `${userAgent()} (instance ${setup.instance})` }),
  });
}
