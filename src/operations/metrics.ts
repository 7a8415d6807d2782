import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PASS_RESULTS, type PassResultLabel } from './pass-record.js';

/** The daemon's Prometheus metrics, in a registry of its own (never prom-client's global one). */
export interface DaemonMetrics {
  registry: Registry;
  passFinished(source: string, result: PassResultLabel, seconds: number): void;
  /** Fed from the API client's `onRequest`; status `error` means no answer (network error, timeout). */
  apiRequest(request: { method: string; status: number | 'error' }): void;
  /** Creates a source's series at zero, so rates and absence alerts work from the start. */
  addSource(source: string): void;
  /** Fed from the API client's `onRateLimitWait`. */
  rateLimitWait(seconds: number): void;
  drift(source: string, changes: number): void;
  lastSuccess(source: string, epochMs: number): void;
  /** Resources another writer keeps changing back (see fight-detector.ts). */
  fighting(source: string, resources: number): void;
  suspended(source: string, suspended: boolean): void;
  /** A pool's agents by status, and the age of its newest ping (NaN: none ever pinged). */
  poolHealth(organization: string, pool: string, agents: Record<string, number>, newestPingAgeSeconds: number | null): void;
  /** A notification's fate: `sent`, `failed` (after its retries) or `dropped` (the receiver's queue was full). */
  notification(receiver: string, event: string, result: 'sent' | 'failed' | 'dropped'): void;
  /** Whether this replica syncs (always, without leader election). */
  leader(leading: boolean): void;
  /** Rollouts of a source held at their start level by the last pass that planned. */
  rollouts(source: string, held: number): void;
  /** A rollout promoted to its declared level: its change was applied. */
  promoted(source: string): void;
}

/**
 * Node's own metrics (prom-client's defaults: CPU, memory, event loop lag, GC), in a registry made once per process:
 * they describe the process, not a daemon, and their event loop monitor, once enabled, samples until the process
 * ends. A process that starts more than one daemon (the test suites do) keeps one monitor, not one a daemon.
 */
let processMetrics: Registry | undefined;

function processMetricsRegistry(): Registry {
  if (processMetrics === undefined) {
    processMetrics = new Registry();
    collectDefaultMetrics({ register: processMetrics });
  }
  return processMetrics;
}

export function createDaemonMetrics(options: { defaultMetrics?: boolean } = {}): DaemonMetrics {
  const own = new Registry();
  const { passes, duration, requests, rateLimitWait, drift, lastSuccess, fighting, suspended, notifications, poolAgents, newestPing, leader, rollouts, promotions } = metricFamilies(own);
  const registry = (options.defaultMetrics ?? true) ? Registry.merge([processMetricsRegistry(), own]) : own;
  return {
    registry,
    rollouts(source, held) {
      rollouts.set({ source }, held);
    },
    promoted(source) {
      promotions.inc({ source });
    },
    leader(leading) {
      leader.set(leading ? 1 : 0);
    },
    poolHealth(organization, pool, agents, age) {
      for (const [status, count] of Object.entries(agents)) poolAgents.set({ organization, pool, status }, count);
      if (age === null) newestPing.remove({ organization, pool });
      else newestPing.set({ organization, pool }, age);
    },
    suspended(source, value) {
      suspended.set({ source }, value ? 1 : 0);
    },
    notification(receiver, event, result) {
      notifications.inc({ receiver, event, result });
    },
    passFinished(source, result, seconds) {
      passes.inc({ source, result });
      duration.observe({ source }, seconds);
    },
    apiRequest({ method, status }) {
      requests.inc({ method: method.toUpperCase(), status: String(status) });
    },
    rateLimitWait(seconds) {
      if (seconds > 0) rateLimitWait.inc(seconds);
    },
    addSource(source) {
      for (const result of PASS_RESULTS) passes.inc({ source, result }, 0);
      fighting.set({ source }, 0);
      promotions.inc({ source }, 0);
    },
    drift(source, changes) {
      drift.set({ source }, changes);
    },
    fighting(source, resources) {
      fighting.set({ source }, resources);
    },
    lastSuccess(source, epochMs) {
      lastSuccess.set({ source }, epochMs / 1000);
    },
  };
}

/** The daemon's metric families, registered in `registry`: their names, help texts and labels. */
function metricFamilies(registry: Registry) {
  const registers = [registry];
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) => new Gauge<L>({ name, help, labelNames, registers });
  return {
    passes: counter('policy_pool_sync_passes_total', 'Reconcile passes finished, by source and result (success, failure, timeout, handed-over: aborted when this replica lost the lease).', ['source', 'result']),
    duration: new Histogram({
      name: 'policy_pool_sync_pass_duration_seconds',
      help: 'Duration of reconcile passes, fetch included.',
      labelNames: ['source'],
      buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    }),
    requests: counter('policy_pool_sync_api_requests_total', 'API requests by method and HTTP status (error: no answer).', ['method', 'status']),
    rateLimitWait: counter('policy_pool_sync_rate_limit_wait_seconds_total', 'Seconds spent waiting for the API rate limit.'),
    drift: gauge('policy_pool_sync_drift', 'Changes the last pass of a source planned (0: in sync).', ['source']),
    lastSuccess: gauge('policy_pool_sync_last_success_timestamp_seconds', 'Unix time of the last successful pass of a source.', ['source']),
    fighting: gauge('policy_pool_sync_fighting_resources', 'Resources of a source that another writer changed back at each of the last passes (0: none).', ['source']),
    suspended: gauge('policy_pool_sync_suspended', 'Whether a source is suspended (1): no trigger but sync starts a pass.', ['source']),
    notifications: counter(
      'policy_pool_sync_notifications_total',
      'Notifications by receiver, event and result (sent; failed after retries; dropped from a full queue).',
      ['receiver', 'event', 'result'],
    ),
    poolAgents: gauge(
      'policy_pool_sync_pool_agents',
      'Agents of an agent pool by status (idle, busy, exited, errored, unknown), as the last successful pass found them.',
      ['organization', 'pool', 'status'],
    ),
    newestPing: gauge('policy_pool_sync_pool_newest_ping_age_seconds', 'Seconds since any agent of an agent pool last pinged (absent: none ever did).', ['organization', 'pool']),
    rollouts: gauge('policy_pool_sync_rollouts', 'Rollouts of a source under way: policies held at their start level until the runs in scope are clean.', ['source']),
    promotions: counter('policy_pool_sync_rollout_promotions_total', 'Rollouts promoted to their declared level (the change applied).', ['source']),
    leader: gauge('policy_pool_sync_leader', 'Whether this replica holds the leader-election lease and syncs (1), or stands by (0); 1 without leader-election.'),
  };
}
