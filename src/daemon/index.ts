import { createApiClient } from '../api/from-config.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { waitForShutdownSignal } from '../signals.js';
import { startDaemon } from './daemon.js';
import { startEmbeddedApi } from './embedded-api.js';
import { createDaemonMetrics } from './metrics.js';
import { createElector, leaderIdentity, openLeaseStore, type Elector } from '../leader/index.js';

export { startDaemon, type RunningDaemon, type StartDaemonOptions } from './daemon.js';
export { HTTP_LIMITS, type HttpLimits } from './http-server.js';
export { createDaemonMetrics, type DaemonMetrics } from './metrics.js';
export type { Reconcile } from './source-runner.js';
export type { SourceStatus, Readiness } from './status.js';
export type { TriggerReason } from './source-loop.js';

export interface RunDaemonOptions {
  config: Config;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** `--no-cache`: the code cache lives in memory only, not in the state dir. @default false */
  noCache?: boolean;
  /** Resolves when the daemon should stop. @default the first SIGTERM or SIGINT */
  shutdown?: Promise<unknown>;
}

/** Runs the daemon until SIGTERM or SIGINT, then shuts down cleanly and resolves with the exit code (0). */
export async function runDaemon(options: RunDaemonOptions): Promise<number> {
  const { config, logger, env } = options;
  const shutdown = options.shutdown ?? waitForShutdownSignal(logger);
  const emulator = config.api.url === 'embedded' ? await startEmbeddedApi(config, logger) : null;
  const metrics = createDaemonMetrics();
  const election = await openElection(config, env, logger);
  try {
    const api = await createApiClient({
      config,
      env,
      logger,
      endpoint: emulator === null ? undefined : { url: emulator.url, token: emulator.token },
      onRequest: (request) => metrics.apiRequest(request),
      onRateLimitWait: (seconds) => metrics.rateLimitWait(seconds),
      ...(election === null ? {} : { fence: () => election.fence(), instance: election.identity }),
    });
    try {
      const daemon = await startDaemon({ config, logger, env, api, metrics, noCache: options.noCache ?? false, ...(election === null ? {} : { election }) });
      await shutdown;
      await daemon.stop();
    } finally {
      await api.close();
    }
  } finally {
    await emulator?.close();
  }
  return 0;
}

/** The election `leader-election:` asks for, or null. */
async function openElection(config: Config, env: NodeJS.ProcessEnv, logger: Logger): Promise<Elector | null> {
  const settings = config.leaderElection;
  if (settings === undefined) return null;
  return createElector({
    store: await openLeaseStore(settings, env),
    identity: leaderIdentity(),
    leaseDurationMs: settings.leaseDurationMs,
    renewDeadlineMs: settings.renewDeadlineMs,
    retryPeriodMs: settings.retryPeriodMs,
    logger,
  });
}
