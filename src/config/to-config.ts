import path from 'node:path';
import type { NativeKindName, Ownership } from '../model.js';
import { durationMs } from './duration.js';
import type { ApiConfig, Config, EvidenceConfig, LeaderElectionConfig, NotificationConfig, ParameterAllowance, SourceConfig, SyncWindow } from './types.js';

export const DEFAULT_LISTEN = '127.0.0.1:9090';
export const DEFAULT_STATE_DIR = '.policy-pool-sync';
export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 30;
/** Seconds one API request may keep retrying or waiting on 429s. */
export const DEFAULT_RETRY_BUDGET_SECONDS = 60;
export const DEFAULT_SCHEDULE = '*/5 * * * *';
/** Requests in flight at once. */
export const DEFAULT_API_CONCURRENCY = 8;

/** The API settings a config file, flags alone and the saved run start from: the one place their defaults are written. */
export const API_DEFAULTS: Readonly<ApiConfig> = {
  url: 'embedded',
  tokenFile: null,
  rateLimit: 'auto',
  concurrency: DEFAULT_API_CONCURRENCY,
  legacyEnforce: false,
  nativeKind: null,
  retryBudgetSeconds: DEFAULT_RETRY_BUDGET_SECONDS,
};

/** The config file as written (kebab-case), after schema validation. */
export interface RawConfig {
  api?: { url?: string; 'token-file'?: string | null; 'rate-limit'?: 'auto' | number; concurrency?: number; 'legacy-enforce'?: boolean; 'native-kind'?: NativeKindName; 'retry-budget'?: number };
  sources: RawSource[];
  listen?: string;
  'webhook-secret-env'?: string;
  'allowed-hosts'?: string[];
  'state-dir'?: string;
  'shutdown-timeout'?: number;
  notifications?: RawNotification[];
  'leader-election'?: RawLeaderElection;
  /** What sensitive parameters may read, for every source that does not say its own. */
  parameters?: RawParameters;
  /** Where agent tokens are delivered, for every source that does not say its own. */
  tokens?: RawTokens;
}

/** `tokens:` the folder declared agent tokens' texts are delivered to. */
export interface RawTokens {
  dir?: string;
  secrets?: string[];
}

/** `parameters:` what a set's `{env: NAME}` and `{file: PATH}` may read. */
export interface RawParameters {
  env?: string[];
  files?: string;
}

export interface RawLeaderElection {
  store: LeaderElectionConfig['store'];
  endpoints?: string[];
  'lease-name'?: string;
  'lease-duration'?: string;
  'renew-deadline'?: string;
  'retry-period'?: string;
  address?: string;
  'forward-to-loopback'?: boolean;
}

/** client-go's defaults, which Flux shortens to 35 s, 30 s and 5 s. */
export const LEADER_ELECTION_DEFAULTS = { leaseName: 'policy-pool-sync', leaseDuration: '15s', renewDeadline: '10s', retryPeriod: '2s' } as const;

export interface RawNotification {
  name: string;
  type: NotificationConfig['type'];
  'url-env'?: string;
  'url-file'?: string;
  'secret-env'?: string;
  events?: string[];
  sources?: string[];
  'status-url'?: string;
}

export interface RawSyncWindow {
  kind: 'allow' | 'deny';
  schedule: string;
  duration: string;
  timezone?: string;
}

export interface RawSource {
  name: string;
  organization: string;
  path?: string;
  git?: { url: string; ref?: string; path?: string };
  schedule?: string;
  prune?: boolean;
  ownership?: Ownership;
  'max-deletes'?: number;
  'allow-empty'?: boolean;
  adopt?: boolean;
  'strict-imports'?: boolean;
  evidence?: { window?: string; 'max-requests'?: number; 'max-seconds'?: number };
  'max-agent-pools'?: number;
  'pass-timeout'?: number;
  'sync-windows'?: RawSyncWindow[];
  parameters?: RawParameters;
  tokens?: RawTokens;
}

/** Fills defaults and resolves relative paths against `cwd` (the working directory, so `npm start` works from the project root). */
export function toConfig(raw: RawConfig, cwd: string): Config {
  const tokenFile = raw.api?.['token-file'] ?? null;
  return {
    api: {
      url: raw.api?.url ?? API_DEFAULTS.url,
      tokenFile: tokenFile === null ? null : path.resolve(cwd, tokenFile),
      rateLimit: raw.api?.['rate-limit'] ?? API_DEFAULTS.rateLimit,
      concurrency: raw.api?.concurrency ?? API_DEFAULTS.concurrency,
      legacyEnforce: raw.api?.['legacy-enforce'] ?? API_DEFAULTS.legacyEnforce,
      nativeKind: raw.api?.['native-kind'] ?? API_DEFAULTS.nativeKind,
      retryBudgetSeconds: raw.api?.['retry-budget'] ?? API_DEFAULTS.retryBudgetSeconds,
    },
    sources: raw.sources.map((s) => toSource(s, cwd, raw.parameters, raw.tokens)),
    listen: raw.listen ?? DEFAULT_LISTEN,
    webhookSecretEnv: raw['webhook-secret-env'] ?? 'WEBHOOK_SECRET',
    ...(raw['allowed-hosts'] === undefined ? {} : { allowedHosts: raw['allowed-hosts'] }),
    stateDir: path.resolve(cwd, raw['state-dir'] ?? DEFAULT_STATE_DIR),
    shutdownTimeoutSeconds: raw['shutdown-timeout'] ?? DEFAULT_SHUTDOWN_TIMEOUT_SECONDS,
    notifications: (raw.notifications ?? []).map((n) => toNotification(n, cwd)),
    ...(raw['leader-election'] === undefined ? {} : { leaderElection: toLeaderElection(raw['leader-election']) }),
  };
}

export function toLeaderElection(raw: RawLeaderElection): LeaderElectionConfig {
  const d = LEADER_ELECTION_DEFAULTS;
  return {
    store: raw.store,
    endpoints: raw.endpoints ?? [],
    leaseName: raw['lease-name'] ?? d.leaseName,
    leaseDurationMs: durationMs(raw['lease-duration'] ?? d.leaseDuration),
    renewDeadlineMs: durationMs(raw['renew-deadline'] ?? d.renewDeadline),
    retryPeriodMs: durationMs(raw['retry-period'] ?? d.retryPeriod),
    ...(raw.address === undefined ? {} : { address: raw.address.replace(/\/+$/, '') }),
    ...(raw['forward-to-loopback'] === undefined ? {} : { forwardToLoopback: raw['forward-to-loopback'] }),
  };
}

function toSource(raw: RawSource, cwd: string, parameters: RawParameters | undefined, tokens: RawTokens | undefined): SourceConfig {
  const allowed = raw.parameters ?? parameters;
  const tokenDir = (raw.tokens ?? tokens)?.dir;
  const tokenSecrets = (raw.tokens ?? tokens)?.secrets;
  return {
    ...sourceDefaults(raw.name, raw.organization),
    path: raw.path === undefined ? null : path.resolve(cwd, raw.path),
    git: raw.git === undefined ? null : { url: raw.git.url, ref: raw.git.ref ?? 'main', path: raw.git.path ?? '.' },
    schedule: raw.schedule ?? DEFAULT_SCHEDULE,
    prune: raw.prune ?? false,
    ownership: raw.ownership ?? 'marker',
    maxDeletes: raw['max-deletes'] ?? 10,
    allowEmpty: raw['allow-empty'] ?? false,
    adopt: raw.adopt ?? false,
    ...(raw['strict-imports'] === true ? { strictImports: true } : {}),
    ...(raw.evidence === undefined ? {} : { evidence: toEvidence(raw.evidence) }),
    maxAgentPools: raw['max-agent-pools'] ?? 1,
    passTimeoutSeconds: raw['pass-timeout'] ?? 600,
    ...(raw['sync-windows'] === undefined ? {} : { syncWindows: raw['sync-windows'].map(toSyncWindow) }),
    ...(allowed === undefined ? {} : { parameters: toParameters(allowed, cwd) }),
    ...(tokenDir === undefined ? {} : { tokenDir: path.resolve(cwd, tokenDir) }),
    ...(tokenSecrets === undefined || tokenSecrets.length === 0 ? {} : { tokenSecrets: [...tokenSecrets] }),
  };
}

/** A source's `parameters:` (else the file's): the folder resolved against `cwd`; what the tool reads itself is added once the config is whole. */
function toParameters(raw: RawParameters, cwd: string): ParameterAllowance {
  return { env: raw.env ?? [], files: raw.files === undefined ? null : path.resolve(cwd, raw.files), reserved: { env: [], files: [] } };
}

function toNotification(raw: RawNotification, cwd: string): NotificationConfig {
  return {
    name: raw.name,
    type: raw.type,
    urlEnv: raw['url-env'] ?? null,
    urlFile: raw['url-file'] === undefined ? null : path.resolve(cwd, raw['url-file']),
    secretEnv: raw['secret-env'] ?? null,
    events: raw.events ?? null,
    sources: raw.sources ?? null,
    statusUrl: raw['status-url'] ?? null,
  };
}

/** `duration` is `90m`, `2h` or `1h30m` (the schema checks the form). */
function toSyncWindow(raw: RawSyncWindow): SyncWindow {
  const match = /^(?:(\d+)h)?(?:(\d+)m)?$/.exec(raw.duration);
  const minutes = Number(match?.[1] ?? 0) * 60 + Number(match?.[2] ?? 0);
  return { kind: raw.kind, schedule: raw.schedule, durationMinutes: minutes, timezone: raw.timezone ?? 'UTC' };
}

/** A source with every optional setting at its default; `path` and `git` still to be set. */
export function sourceDefaults(name: string, organization: string): SourceConfig {
  return {
    name,
    organization,
    path: null,
    git: null,
    schedule: DEFAULT_SCHEDULE,
    prune: false,
    ownership: 'marker',
    maxDeletes: 10,
    allowEmpty: false,
    adopt: false,
    maxAgentPools: 1,
    passTimeoutSeconds: 600,
  };
}

const DAY_MS = 86_400_000;

/** `evidence:` of a source, with its defaults: 30 days, 500 requests, 120 s. */
export function toEvidence(raw: { window?: string; 'max-requests'?: number; 'max-seconds'?: number }): EvidenceConfig {
  return { windowMs: Number.parseInt(raw.window ?? '30d', 10) * DAY_MS, maxRequests: raw['max-requests'] ?? 500, maxSeconds: raw['max-seconds'] ?? 120 };
}
