import type { KeyPath } from '../yaml/index.js';
import type { NativeKindName, Ownership } from '../model.js';

export interface ApiConfig {
  /** An API base URL ending in `/api/v2`, or `embedded` to start the emulator in-process. */
  url: string;
  tokenFile: string | null;
  /** Requests per second, or `auto` to follow `x-ratelimit-limit`. */
  rateLimit: 'auto' | number;
  /** Requests in flight at once. @default 8 */
  concurrency: number;
  /** Servers older than mid-2023: send and read the level as the deprecated `enforce` only. @default false */
  legacyEnforce: boolean;
  /**
   * The API's word for the native kind: `native` (the document) or `sentinel` (the hosted service); null (not set):
   * learned from the API. @default null
   */
  nativeKind: NativeKindName | null;
  /**
   * Seconds a request may keep trying: retrying 5xx, timeouts and dropped connections with exponential back-off, and
   * waiting on 429s; also how long the client waits while the API answers nothing but 429. @default 60
   */
  retryBudgetSeconds: number;
}

export interface GitSourceConfig {
  url: string;
  /** @default "main" */
  ref: string;
  /** Folder inside the repo that holds the declared tree. @default "." */
  path: string;
}

export interface SourceConfig {
  name: string;
  organization: string;
  /** A local folder (absolute; a relative path in the file resolves against the working directory), or null for a git source. */
  path: string | null;
  git: GitSourceConfig | null;
  /** Cron expression for fetch + full resync. @default "*\/5 * * * *" */
  schedule: string;
  /** @default false */
  prune: boolean;
  /** @default "marker" */
  ownership: Ownership;
  /** @default 10 */
  maxDeletes: number;
  /** @default false */
  allowEmpty: boolean;
  /** Take over policies that carry another source's ownership marker. @default false */
  adopt: boolean;
  /** The most agent pools the source may declare: the tool's own guard, not the organization's limit. @default 1 */
  maxAgentPools: number;
  /** Imports that will fail on the service are errors, not warnings (`--strict-imports`, `strict-imports: true`). @default false */
  strictImports?: boolean;
  /** How a plan reads runs for its evidence and rollouts (`evidence:`, `--evidence-window`, `--evidence-max-requests`). @default 30 days, 500 requests, 120 s */
  evidence?: EvidenceConfig;
  /** Seconds a pass may take before it is abandoned. @default 600 */
  passTimeoutSeconds: number;
  /** When changes may be applied (`sync-windows`); none: always. */
  syncWindows?: SyncWindow[];
  /**
   * What a policy set's sensitive parameters may read (`parameters:` of the source, else of the file; `--parameter-env`,
   * `--parameter-files`). Absent: nothing.
   */
  parameters?: ParameterAllowance;
  /**
   * The folder declared agent tokens' texts are delivered to (`tokens.dir` of the source, else of the file;
   * `--token-dir`). Absent: none, and a `deliver-to` is refused.
   */
  tokenDir?: string;
  /** The Kubernetes Secrets, by name, a `deliver-to: {secret}` may write (`tokens.secrets`). Absent: none. */
  tokenSecrets?: string[];
}

/**
 * What the operator lets the declared repo's `{env: NAME}` and `{file: PATH}` read. The repo only names a value; this,
 * which the repo cannot change, bounds what it may name.
 */
export interface ParameterAllowance {
  /** Variable names, each exact or a prefix ending in `*` (`POLICY_PARAM_*`). @default [] */
  env: string[];
  /** The folder (absolute) whose files may be read; null: no file. @default null */
  files: string | null;
  /**
   * The variables and files this tool reads for itself, never readable whatever `env` and `files` say (besides those
   * every run holds: `ownSecretSources` in secrets.ts). Filled from the config when it is loaded.
   */
  reserved: { env: string[]; files: string[] };
}

/** `evidence:` of a source. */
export interface EvidenceConfig {
  /** How far back a tightening change's evidence looks. */
  windowMs: number;
  /** The most requests one plan spends reading runs. */
  maxRequests: number;
  /** The most time one plan spends reading runs, in seconds (the run lists are paced at 30 a minute). @default 120 */
  maxSeconds?: number;
}

/** `sync-windows:` one window: `deny` closes the source while it is open; with `allow` windows, only they open it. */
export interface SyncWindow {
  kind: 'allow' | 'deny';
  /** A five-field cron expression: when the window starts. */
  schedule: string;
  /** How long it stays open, in minutes. */
  durationMinutes: number;
  /** IANA time zone of the schedule. @default "UTC" */
  timezone: string;
}

/** `notifications:` one receiver. Exactly one of `urlEnv` and `urlFile` is set. */
export interface NotificationConfig {
  name: string;
  type: 'webhook' | 'slack' | 'github-status' | 'gitlab-status';
  urlEnv: string | null;
  urlFile: string | null;
  /** webhook: the HMAC key; github-status and gitlab-status: the API token. */
  secretEnv: string | null;
  /** The events sent; null: all of them (commit statuses follow every pass). */
  events: string[] | null;
  /** Only these sources; null: all of them. */
  sources: string[] | null;
  /** The status page's address, linked from commit statuses. */
  statusUrl: string | null;
}

export interface Config {
  api: ApiConfig;
  sources: SourceConfig[];
  /** host:port of the daemon's HTTP server. @default "127.0.0.1:9090" */
  listen: string;
  /** Name of the environment variable that holds the webhook secret. @default "WEBHOOK_SECRET" */
  webhookSecretEnv: string;
  /**
   * Host names the status routes, the page, /metrics and control answer to, besides IP addresses, localhost and the
   * `listen` host (`allowed-hosts`; `*.example.com` allows every name under it). @default []
   */
  allowedHosts?: string[];
  /** Absolute (a relative path resolves against the working directory); clones live here. @default ".policy-pool-sync" */
  stateDir: string;
  /**
   * Seconds a shutdown (SIGTERM, SIGINT) waits for the changes and requests under way before it aborts them.
   * @default 30
   */
  shutdownTimeoutSeconds: number;
  /** Where pass events are sent (`notifications:`). @default [] */
  notifications?: NotificationConfig[];
  /** `leader-election:` one leader among replicas; absent: this daemon always syncs. */
  leaderElection?: LeaderElectionConfig;
}

/** `leader-election:` the lease the replicas hold in turn (docs/daemon.md, "Running a standby"). */
export interface LeaderElectionConfig {
  store: 'etcd' | 'kubernetes';
  /** etcd's client URLs, tried in turn; empty for `kubernetes` (the API server of the pod's cluster). */
  endpoints: string[];
  /** The etcd key's last part, or the Lease's name in the pod's namespace. @default "policy-pool-sync" */
  leaseName: string;
  /** How long a candidate waits, after it last saw the lease change, before it takes it. @default 15 s */
  leaseDurationMs: number;
  /** How long the leader keeps leading without a successful renewal; shorter than the lease. @default 10 s */
  renewDeadlineMs: number;
  /** How often the leader renews, and a candidate tries. @default 2 s */
  retryPeriodMs: number;
  /**
   * Where a standby hands this replica webhook deliveries while it leads (`http://10.0.0.5:9090`), written in the
   * lease record. @default the listen address when it names one host; else none (a standby then answers 503)
   */
  address?: string;
  /**
   * Whether a standby may hand webhook deliveries to a leader whose address is on loopback (one host: tests, a
   * single machine). Otherwise it hands them only to an IP literal outside loopback, link-local and the cloud
   * metadata addresses (webhook-forward.ts), whatever the lease record says. @default false
   */
  forwardToLoopback?: boolean;
}

/** A problem of the config file found beyond what the JSON Schema can say. */
export interface ConfigCheckProblem {
  path: KeyPath;
  /** A sentence whose subject is the value at `path`, as in schema messages. */
  message: string;
}
