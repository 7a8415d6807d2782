import { leaderAddress } from './leader-address.js';
import type { PolicyApi } from '../api/types.js';
import type { Config } from '../config/types.js';
import type { Logger } from '../logger.js';
import { openCodeCacheStore, type CodeCacheStore } from '../live/code-cache-file.js';
import { openEvidenceCacheStore, type EvidenceCacheStore } from '../live/evidence-cache-file.js';
import { runPass } from '../reconcile.js';
import { startDaemonServer, type HttpLimits } from '../server/http-server.js';
import { createDaemonMetrics, type DaemonMetrics } from '../operations/metrics.js';
import type { BackoffOptions, TriggerReason } from './source-loop.js';
import { startSourceRunner, type Reconcile, type SourceRunner } from './source-runner.js';
import { staggeredStartUp, type StartUp } from './start-up.js';
import { readiness } from '../server/status.js';
import type { SourceStatus } from '../operations/source-status.js';
import { handleWebhook } from '../server/webhook.js';
import { UsageError } from '../errors.js';
import { knownSecrets } from '../config/secrets.js';
import { createRedactor, redactValue, type Redact } from '../redact.js';
import { createNotifier, type DeliveryLimits, type Notifier } from '../notify/index.js';
import { controlTarget } from './control-target.js';
import { handleControl } from '../server/control.js';
import { createAuthGate, type AuthLimits } from '../server/auth-gate.js';
import { carriesBearer } from '../server/authorization.js';
import { endpointSecrets } from '../server/endpoint-secrets.js';
import { hostRule } from '../server/request-origin.js';
import { createDeliveryLog } from '../server/webhook-deliveries.js';
import { openSuspensions, type Suspensions } from '../operations/suspensions.js';
import { processSeal, type StateSeal } from '../state-seal.js';
import { windowProblem } from '../operations/sync-windows.js';
import type { Elector } from '../leader/index.js';
import { leadershipStatus, standbyGate, standbyReadiness } from '../server/standby.js';

export interface StartDaemonOptions {
  config: Config;
  logger: Logger;
  env: NodeJS.ProcessEnv;
  /** The API every source's passes talk to. */
  api: PolicyApi;
  /** The pass run over each checkout, in apply mode. @default runPass */
  reconcile?: Reconcile;
  /** @default a fresh registry with the default process metrics */
  metrics?: DaemonMetrics;
  /** Back-off after a failed pass. @default 5 s doubling to 5 min */
  backoff?: BackoffOptions;
  /** Quiet time after the last change of a local folder before a pass. @default 300 */
  watchDebounceMs?: number;
  /** true: the code cache lives in memory only, not in the state dir. @default false */
  noCache?: boolean;
  /** What one client may hold of the HTTP server. @default HTTP_LIMITS */
  httpLimits?: HttpLimits;
  /** How many failed authentications a client may make, and how fast it gets more. @default AUTH_LIMITS */
  authLimits?: AuthLimits;
  /** The clock of the sync windows and the fight detector. @default the system clock */
  now?: () => Date;
  /** Queue length, attempts, timeout and back-off of notification delivery. @default DELIVERY_DEFAULTS */
  notificationLimits?: Partial<DeliveryLimits>;
  /** How long a stop waits for the notifications still queued; what is left then is dropped. @default NOTIFY_CLOSE_MS */
  notificationCloseMs?: number;
  /** The one redactor: /status (and its page), history and notifications go through it. @default the one of `config` and `env` */
  redact?: Redact;
  /** Leader election (`leader-election:`): the sources sync only while it leads. @default none: always */
  election?: Elector;
  /** Why the API cannot be reached now, as its requests found it (`api-unreachable.ts`), for /status and /readyz. @default never said */
  apiProblem?: () => string | null;
  /**
   * Leader election: after gaining the lease, when the second pass runs. Requests the previous leader sent before its
   * deadline may still land until the API's request timeout has passed; that pass puts back what they undid.
   * @default TAKEOVER_SETTLE_MS
   */
  takeoverSettleMs?: number;
}

/** The API client's request timeout: how long after its deadline a previous leader's request can still land. */
export const TAKEOVER_SETTLE_MS = 30_000;

export interface RunningDaemon {
  /** `http://host:port` of the HTTP server. */
  origin: string;
  /** What /status shows; with `history`, each source's last passes too. */
  statuses(options?: { history?: boolean }): SourceStatus[];
  trigger(sourceName: string, reason: TriggerReason): void;
  /** Resolves once no source has a pass running or queued. */
  whenIdle(): Promise<void>;
  /**
   * Stops taking triggers (schedule, watch, webhook) and starting changes, waits for the changes under way (at most
   * `shutdown-timeout`, then the passes are aborted), closes the HTTP server.
   */
  stop(): Promise<void>;
}

/** Starts the HTTP server and one loop per source, and triggers a start-up pass of every source. */
export async function startDaemon(options: StartDaemonOptions): Promise<RunningDaemon> {
  const { config, logger } = options;
  const metrics = options.metrics ?? createDaemonMetrics();
  let accepting = true;
  const secrets = endpointSecrets(options.env, config.webhookSecretEnv, config.listen, logger);
  const gate = createAuthGate({ registry: metrics.registry, logger, ...(options.authLimits === undefined ? {} : { limits: options.authLimits }) });
  const deliveries = createDeliveryLog();
  const { control } = secrets;
  const election = options.election ?? null;
  const leading = () => election === null || election.leading;
  metrics.leader(election === null);
  checkSyncWindows(config);
  // What the state dir's files must carry to be read back: a seal keyed from the API token (state-seal.ts).
  const seal = options.api.stateSeal?.() ?? processSeal();
  const suspensions = await openSuspensions(config.stateDir, logger, seal);
  const redact = options.redact ?? createRedactor(knownSecrets(config, options.env));
  const notifier = createNotifier({
    config, env: options.env, logger, redact, onResult: (receiver, event, result) => metrics.notification(receiver, event, result),
    ...(options.notificationLimits === undefined ? {} : { limits: options.notificationLimits }),
  });
  const caches = openCodeCacheStore({ stateDir: config.stateDir, logger, seal, persist: options.noCache !== true });
  const runCaches = openEvidenceCacheStore({ stateDir: config.stateDir, logger, seal, persist: options.noCache !== true });

  const standby = standbyGate(election, logger, { forwardToLoopback: config.leaderElection?.forwardToLoopback === true });
  const runners = await startRunners(options, { metrics, suspensions, notifier, redact, leading, caches, runCaches, seal });
  const statuses = (opts: { history?: boolean } = {}) => redactValue([...runners.values()].map((r) => r.status(opts)), redact);
  const stopRunners = (graceMs?: number) => Promise.all([...runners.values()].map((r) => r.stop(graceMs)));
  const server = await startDaemonServer(config.listen, {
    statuses,
    readiness: () => (leading() ? readiness(statuses()) : standbyReadiness(election)),
    leadership: () => leadershipStatus(election),
    registry: metrics.registry,
    logger,
    statusToken: secrets.status,
    gate,
    hostAllowed: hostRule(config.listen, config.allowedHosts ?? []),
    control: (request, url) => {
      if (!accepting) return Promise.resolve({ status: 503, body: { error: 'shutting down' } });
      const authorize = control === null ? null : () => gate.check('control', request, () => carriesBearer(request.headers.authorization, control));
      return handleControl(request, url, authorize, controlTarget(runners), standby.control);
    },
    webhook(request, rawBody) {
      if (!accepting) return { status: 503, body: { error: 'shutting down' } };
      return handleWebhook(request.headers, rawBody, {
        secret: secrets.webhook,
        sources: config.sources,
        logger,
        refused: (reason) => gate.failed('webhook', request, reason),
        deliveries,
        standby: standby.webhook,
        trigger: (names) => names.forEach((name) => runners.get(name)?.trigger('webhook')),
      });
    },
  }, options.httpLimits).catch(async (error: unknown) => {
    await stopRunners();
    throw error;
  });
  logger.info({ listen: server.origin, sources: config.sources.map((s) => s.name) }, 'daemon listening');
  if (election !== null) election.advertise(leaderAddress(config, server.origin));
  const startUp = startPasses(election, runners, metrics, options.takeoverSettleMs ?? TAKEOVER_SETTLE_MS);

  return {
    origin: server.origin,
    statuses,
    trigger(sourceName, reason) {
      const runner = runners.get(sourceName);
      if (runner === undefined) throw new Error(`no source named ${sourceName}`);
      runner.trigger(reason);
    },
    async whenIdle() {
      await startUp.done;
      await Promise.all([...runners.values()].map((r) => r.whenIdle()));
    },
    async stop() {
      accepting = false;
      startUp.stop();
      const graceSeconds = config.shutdownTimeoutSeconds;
      logger.info({ graceSeconds }, 'shutting down: no new triggers or changes; finishing the changes under way');
      await stopRunners(graceSeconds * 1000);
      // Released once no pass runs, so that a standby takes over at once.
      await election?.stop();
      await server.close();
      await notifier.close(options.notificationCloseMs ?? NOTIFY_CLOSE_MS);
      logger.info('daemon stopped');
    },
  };
}

/** What the daemon shares with each source's runner. */
interface RunnerShared {
  metrics: DaemonMetrics;
  suspensions: Suspensions;
  notifier: Notifier;
  redact: Redact;
  leading: () => boolean;
  caches: CodeCacheStore;
  /** The evidence caches: the findings of finished runs, one per organization. */
  runCaches: EvidenceCacheStore;
  /** The state dir's seal (state-seal.ts). */
  seal: StateSeal;
}

/** One runner per source, in the config's order. */
async function startRunners(options: StartDaemonOptions, shared: RunnerShared): Promise<Map<string, SourceRunner>> {
  const { config, logger } = options;
  const { metrics, suspensions, notifier, redact, leading, caches, runCaches, seal } = shared;
  const runners = new Map<string, SourceRunner>();
  for (const source of config.sources) {
    const runner = await startSourceRunner({
      source,
      stateDir: config.stateDir,
      seal,
      codeCache: await caches.forOrganization(source.organization),
      runCache: await runCaches.forOrganization(source.organization),
      // Only this source's organization: a pass never writes another organization's files.
      saveCodeCache: async () => {
        await Promise.all([caches.saveOrganization(source.organization), runCaches.saveOrganization(source.organization)]);
      },
      api: options.api,
      concurrency: config.api.concurrency,
      ...(options.apiProblem === undefined ? {} : { apiProblem: options.apiProblem }),
      reconcile: options.reconcile ?? runPass,
      metrics,
      logger,
      env: options.env,
      suspensions,
      notifier,
      redact,
      leading,
      ...(options.now === undefined ? {} : { now: options.now }),
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.watchDebounceMs === undefined ? {} : { watchDebounceMs: options.watchDebounceMs }),
    });
    runners.set(source.name, runner);
  }
  return runners;
}

/**
 * The start of every source, spread (start-up.ts): its folder watch, and its start-up pass: at once, or, with leader
 * election, each time this replica gains the lease, and once more `settleMs` later, while it still leads: a request
 * the previous leader had on the wire can land until then.
 */
function startPasses(election: Elector | null, runners: ReadonlyMap<string, SourceRunner>, metrics: DaemonMetrics, settleMs: number): StartUp {
  if (election === null) {
    return staggeredStartUp([...runners.values()].map((runner) => ({
      periodMs: runner.periodMs(),
      async start() {
        await runner.watch();
        runner.trigger('start-up');
        await runner.whenIdle();
      },
    })));
  }
  let settle: NodeJS.Timeout | null = null;
  election.onLeadingChange((now) => {
    metrics.leader(now);
    if (settle !== null) clearTimeout(settle);
    settle = null;
    // Lost: every pass in flight is aborted at once (the fence already keeps its requests off the wire).
    for (const runner of runners.values()) void (now ? runner.trigger('start-up') : runner.standBy());
    if (!now) return;
    settle = setTimeout(() => {
      settle = null;
      if (election.leading) for (const runner of runners.values()) runner.trigger('takeover');
    }, settleMs);
    settle.unref();
  });
  election.start();
  return staggeredStartUp([...runners.values()].map((runner) => ({ periodMs: runner.periodMs(), start: () => runner.watch() })));
}

/** How long a stop waits for queued notifications. */
const NOTIFY_CLOSE_MS = 5_000;

/** Every sync window's cron expression and time zone can be read, or the daemon does not start. */
function checkSyncWindows(config: Config): void {
  for (const source of config.sources) {
    for (const [index, window] of (source.syncWindows ?? []).entries()) {
      const problem = windowProblem(window);
      if (problem !== null) throw new UsageError(`source "${source.name}": sync-windows[${index}]: ${problem}`);
    }
  }
}
