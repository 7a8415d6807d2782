import type { TestContext } from 'node:test';
import { sourceDefaults } from '../../src/config/to-config.js';
import type { Config, LeaderElectionConfig, NotificationConfig, SourceConfig } from '../../src/config/types.js';
import type { DeliveryLimits } from '../../src/notify/index.js';
import { createApiClient } from '../../src/api/from-config.js';
import type { PolicyApi } from '../../src/api/types.js';
import { startDaemon, type AuthLimits, type DaemonMetrics, type HttpLimits, type Reconcile, type RunningDaemon, type TriggerReason } from '../../src/daemon/index.js';
import type { Elector } from '../../src/leader/index.js';
import type { PassOutcome, PassRequest } from '../../src/reconcile.js';
import { captureLogs, type CapturedLogs } from './logs.js';
import { newStateDir, stoppedWithTest } from './daemon-state-dir.js';

export { newStateDir } from './daemon-state-dir.js';

/** A source that no schedule tick will trigger during a test. */
export function testSource(name: string, overrides: Partial<SourceConfig>): SourceConfig {
  return { ...sourceDefaults(name, 'example-org'), schedule: '0 0 1 1 *', ...overrides };
}

type RecordedPass = PassRequest & { trigger: TriggerReason };

/** A pass that records its requests and answers with an empty plan (or, when `answer` says false, with no plan). */
export function recordingPass(answer?: (request: RecordedPass) => Promise<boolean> | boolean) {
  const calls: RecordedPass[] = [];
  const pass: Reconcile = async (request, trigger) => {
    const call = { ...request, trigger };
    calls.push(call);
    const ok = answer === undefined ? true : await answer(call);
    const header = { name: request.source.name, organization: request.source.organization, revision: request.revision };
    const outcome: PassOutcome = ok
      ? { sourcePlan: { ...header, plan: { changes: [], warnings: [], errors: [] } }, results: [], ok }
      : { sourcePlan: { ...header, plan: null, unreadable: 'declared', errors: ['declared repo is invalid'] }, results: [], ok };
    return outcome;
  };
  return { calls, pass };
}

export interface TestDaemon {
  daemon: RunningDaemon;
  logs: CapturedLogs;
  get(path: string): Promise<Response>;
  post(path: string, body: string, headers: Record<string, string>): Promise<Response>;
}

/**
 * startDaemon on 127.0.0.1:0 with the given sources, stopped when the test ends. Its passes are `pass` when given
 * (they then make no API call), else the real pass against `api`.
 */
export async function startTestDaemon(
  t: TestContext,
  options: {
    sources: SourceConfig[]; pass?: Reconcile; api?: PolicyApi; env?: NodeJS.ProcessEnv; metrics?: DaemonMetrics; httpLimits?: HttpLimits;
    notifications?: NotificationConfig[]; notificationLimits?: Partial<DeliveryLimits>; notificationCloseMs?: number; now?: () => Date; stateDir?: string;
    authLimits?: AuthLimits; allowedHosts?: string[]; listen?: string;
    /** Leader election: the sources sync only while it leads. @default none */
    election?: Elector;
    /** Under election: when the second pass after gaining the lease runs. @default the daemon's */
    takeoverSettleMs?: number;
    /** The config's `leader-election:` settings the daemon reads beside the election it is given (`forwardToLoopback`). @default none */
    leaderElection?: Partial<LeaderElectionConfig>;
  },
): Promise<TestDaemon> {
  const logs = captureLogs();
  const config: Config = {
    api: { url: 'http://127.0.0.1:1/api/v2', tokenFile: null, rateLimit: 'auto', concurrency: 8, legacyEnforce: false, nativeKind: 'native', retryBudgetSeconds: 60 },
    sources: options.sources,
    listen: options.listen ?? '127.0.0.1:0',
    ...(options.allowedHosts === undefined ? {} : { allowedHosts: options.allowedHosts }),
    webhookSecretEnv: 'TEST_WEBHOOK_SECRET',
    shutdownTimeoutSeconds: 30,
    // Removed only once the daemon has stopped (it writes its history and suspensions there until then), and also when
    // it never starts: a config refused at start-up leaves nothing behind.
    stateDir: options.stateDir ?? (await newStateDir(t)),
    notifications: options.notifications ?? [],
    ...(options.leaderElection === undefined ? {} : {
      leaderElection: { store: 'etcd', endpoints: [], leaseName: 'policy-pool-sync', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, ...options.leaderElection },
    }),
  };
  let api = options.api;
  if (api === undefined) {
    const unused = await createApiClient({ config, env: { API_TOKEN: 'unused-token' }, logger: logs.logger });
    t.after(() => unused.close());
    api = unused;
  }
  const daemon = await startDaemon({
    config,
    logger: logs.logger,
    env: options.env ?? {},
    api,
    reconcile: options.pass,
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.httpLimits === undefined ? {} : { httpLimits: options.httpLimits }),
    ...(options.notificationLimits === undefined ? {} : { notificationLimits: options.notificationLimits }),
    ...(options.notificationCloseMs === undefined ? {} : { notificationCloseMs: options.notificationCloseMs }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.authLimits === undefined ? {} : { authLimits: options.authLimits }),
    ...(options.election === undefined ? {} : { election: options.election }),
    ...(options.takeoverSettleMs === undefined ? {} : { takeoverSettleMs: options.takeoverSettleMs }),
    backoff: { initialMs: 60_000, maxMs: 60_000 },
    watchDebounceMs: 100,
  });
  const stop = stoppedWithTest(t, () => daemon.stop());
  t.after(stop);
  return {
    daemon,
    logs,
    get: (path) => fetch(`${daemon.origin}${path}`),
    post: (path, body, headers) => fetch(`${daemon.origin}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }),
  };
}
