import type { Redact } from '../redact.js';
import { createApiClient } from '../api/from-config.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { createRedactor } from '../redact.js';
import { waitForShutdownSignal } from '../signals.js';
import { startDaemon } from './daemon.js';
import { startEmbeddedApi } from './embedded-api.js';
import { createDaemonMetrics, type DaemonMetrics } from '../operations/metrics.js';
import type { ApiClient } from '../api/client.js';
import { createElector, leaderIdentity, liveHolder, openLeaseStore, podLeaseStore, syncFingerprint, type Elector } from '../leader/index.js';
import { LEADER_ELECTION_DEFAULTS } from '../config/to-config.js';
import { UsageError } from '../errors.js';
import { printable } from '../output/printable.js';
import { watchApiReach, type ApiReachWatch } from './api-unreachable.js';

export { startDaemon, type RunningDaemon, type StartDaemonOptions } from './daemon.js';
export { HTTP_LIMITS, type HttpLimits } from '../server/http-server.js';
export { AUTH_LIMITS, type AuthLimits } from '../server/auth-gate.js';
export { createDaemonMetrics, type DaemonMetrics } from '../operations/metrics.js';
export type { Reconcile } from './source-runner.js';
export type { SourceStatus } from '../operations/source-status.js';
export type { Readiness } from '../server/status.js';
export type { TriggerReason } from './source-loop.js';

export interface RunDaemonOptions {
  config: Config;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** `--no-cache`: the code cache lives in memory only, not in the state dir. @default false */
  noCache?: boolean;
  /** Resolves when the daemon should stop. @default the first SIGTERM or SIGINT */
  shutdown?: Promise<unknown>;
  /** The one redactor: /status, history and notifications go through it. @default the one of `config` and `env` */
  redact?: Redact;
}

/** Runs the daemon until SIGTERM or SIGINT, then shuts down cleanly and resolves with the exit code (0). */
export async function runDaemon(options: RunDaemonOptions): Promise<number> {
  const { config, logger, env } = options;
  const shutdown = options.shutdown ?? waitForShutdownSignal(logger);
  allowGroupWrites();
  logStart(config, env, logger);
  const emulator = config.api.url === 'embedded' ? await startEmbeddedApi(config, logger, env) : null;
  const metrics = createDaemonMetrics();
  const election = await openElection(config, env, logger);
  const reach = emulator === null ? watchApiReach(config.api.url, logger, env) : null;
  if (election === null) await refuseBesideLeader(env);
  try {
    const api = await daemonApiClient({ config, env, logger }, emulator === null ? undefined : { url: emulator.url, token: emulator.token }, metrics, election, reach);
    try {
      const daemon = await startDaemon({
        config, logger, env, api, metrics, noCache: options.noCache ?? false, ...(reach === null ? {} : { apiProblem: () => reach.problem() }),
        ...(options.redact === undefined ? {} : { redact: options.redact }), ...(election === null ? {} : { election }),
      });
      await shutdown;
      await daemon.stop();
    } finally {
      await api.close(STOPPED_CLOSE_MS);
    }
  } finally {
    await emulator?.close();
  }
  return 0;
}

/**
 * How long the API client's close waits once the daemon has stopped: every pass has ended, so a request still under
 * way (a tunnel a silent proxy holds, which undici does not end when its pass aborts) has nobody waiting for it, and
 * the stop must not outlast `shutdown-timeout` by the client's usual 5 s.
 */
const STOPPED_CLOSE_MS = 250;

/**
 * The daemon's API client: its requests counted in the metrics and, under leader election, named by the replica
 * (User-Agent) and fenced: each is refused (NotLeaderError) unless this replica holds the lease when it goes out.
 */
export function daemonApiClient(
  setup: { config: Config; env: NodeJS.ProcessEnv; logger: Logger }, endpoint: { url: string; token: string } | undefined, metrics: DaemonMetrics, election: Elector | null,
  reach: ApiReachWatch | null = null,
): Promise<ApiClient> {
  return createApiClient({
    ...setup,
    endpoint,
    onRequest: (request) => {
      metrics.apiRequest(request);
      reach?.observe(request);
    },
    onRateLimitWait: (seconds) => metrics.rateLimitWait(seconds),
    ...(election === null ? {} : { fence: () => election.fence(), instance: election.identity }),
  });
}

/**
 * Says at start which API the daemon talks to and where that came from, and each source: a leftover `API_BASE_URL`
 * in the environment silently outranks the config file, so that is said as a warning.
 */
function logStart(config: Config, env: NodeJS.ProcessEnv, logger: Logger): void {
  const fromEnvironment = (env['API_BASE_URL'] ?? '').trim() !== '';
  const hide = createRedactor([]);
  const apiUrl = hide(config.api.url);
  logger.info({ apiUrl, from: fromEnvironment ? 'API_BASE_URL' : 'api.url in the config file' }, `API: ${apiUrl}`);
  if (fromEnvironment) {
    logger.warn({ apiUrl }, 'API_BASE_URL is set in the environment: it overrides api.url of the config file (unset it to use the file)');
  }
  for (const source of config.sources) {
    const from = source.git === null ? { path: source.path } : { git: hide(source.git.url), ref: source.git.ref, gitPath: source.git.path };
    logger.info({ source: source.name, organization: source.organization, ...from }, `source "${source.name}": organization ${source.organization}`);
  }
}

/**
 * Clears the group-write bit of the umask, so that what the daemon and its git create in the state dir (checkouts
 * included) stays writable by another UID of the same group: OpenShift runs each pod under an arbitrary UID in group 0.
 */
function allowGroupWrites(): void {
  const umask = process.umask(0o002);
  process.umask(umask & ~0o020);
}

/**
 * A replica without election that would sync beside a leader is refused: in a pod that can read the Lease (deploy/ha
 * lets it), a live holder of the lease name means another replica syncs under election, and this config lost it
 * (a layered config.yaml without leader-election:, an overlay without LEADER_ELECTION).
 */
async function refuseBesideLeader(env: NodeJS.ProcessEnv): Promise<void> {
  const name = env.LEADER_ELECTION_LEASE_NAME?.trim() || LEADER_ELECTION_DEFAULTS.leaseName;
  const store = await podLeaseStore(env, name);
  if (store === null) return;
  try {
    const held = await liveHolder(store, new Date(), AbortSignal.timeout(5_000));
    if (held === null) return;
    throw new UsageError(
      `another replica, ${printable(held.holder)}, holds the lease ${store.description} (renewed ${printable(held.renewTime)}) and syncs under leader election; ` +
        'this replica has no leader election and would sync beside it: set LEADER_ELECTION=kubernetes (deploy/ha does), or stop the other',
    );
  } finally {
    await store.close();
  }
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
    fingerprint: syncFingerprint(config.sources),
    logger,
  });
}
