import { ApiClient } from '../api/client.js';
import { resolveToken } from '../config/token.js';
import type { Config } from '../config/types.js';
import type { RunningEmulator } from '../emulator/index.js';
import type { Logger } from '../logger.js';
import { startDaemon } from './daemon.js';
import { startEmbeddedApi } from './embedded-api.js';
import { createDaemonMetrics } from './metrics.js';
import { reconcilePass } from './pass-adapter.js';
import { waitForShutdownSignal } from '../signals.js';

export { startDaemon, type RunningDaemon, type StartDaemonOptions } from './daemon.js';
export type { DaemonPass, DaemonPassReport, DaemonPassRequest } from './daemon-types.js';
export { createDaemonMetrics, type DaemonMetrics } from './metrics.js';
export { reconcilePass } from './pass-adapter.js';
export type { SourceStatus, Readiness } from './status.js';
export type { TriggerReason } from './source-loop.js';

export interface RunDaemonOptions {
  config: Config;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** Resolves when the daemon should stop. @default the first SIGTERM or SIGINT */
  shutdown?: Promise<unknown>;
}

/** Runs the daemon until SIGTERM or SIGINT, then shuts down cleanly and resolves with the exit code (0). */
export async function runDaemon(options: RunDaemonOptions): Promise<number> {
  const { config, logger, env } = options;
  const shutdown = options.shutdown ?? waitForShutdownSignal(logger);
  let emulator: RunningEmulator | null = null;
  let url = config.api.url;
  let token: string;
  if (url === 'embedded') {
    emulator = await startEmbeddedApi(config, logger);
    url = emulator.url;
    token = emulator.token;
  } else {
    token = await resolveToken(config, env);
  }
  const metrics = createDaemonMetrics();
  const api = new ApiClient({
    baseUrl: url,
    token,
    logger,
    rateLimit: config.api.rateLimit,
    concurrency: config.api.concurrency,
    onRequest: (request) => metrics.apiRequest(request),
    onRateLimitWait: (seconds) => metrics.rateLimitWait(seconds),
  });
  try {
    const daemon = await startDaemon({ config, logger, env, pass: reconcilePass(api), metrics });
    await shutdown;
    await daemon.stop();
  } finally {
    await api.close();
    await emulator?.close();
  }
  return 0;
}
