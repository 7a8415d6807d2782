/** Public types of the emulator: the seed and fault specifications. */
import type { AgentStatus as KnownAgentStatus, NativeKindName } from '../model.js';

/** idle, busy, exited, errored or unknown; any other word stands for a status the service may add later (never deletable). */
export type AgentStatus = KnownAgentStatus | (string & {});

export type FaultKind = 'status' | 'latency' | 'drop' | 'lose-response' | 'malformed' | 'headers' | 'endless-pages' | 'growing-pages' | 'duplicate-items' | 'huge-body' | 'fat-pages';

export type RateLimitWindow = 'sliding' | 'fixed';

/** One injected fault; JSON keys are kebab-case, as in the seed and the control endpoint. */
export interface FaultSpec {
  kind: FaultKind;
  /** HTTP method to match; any when absent. */
  method?: string;
  /**
   * Regex tested against the path after /api/v2, without query (an upload link: its whole path, matched only by a fault
   * that gives one); any API request when absent.
   */
  path?: string;
  /** Status answered by a `status` fault. @default 503 */
  status?: number;
  /** Delay of a `latency` fault. @default 1000 */
  'latency-ms'?: number;
  /** How many matching requests it applies to; 0 = unlimited. @default 1 */
  count?: number;
  /** Lasts this long from the first request it matches, applying to every matching one (an outage); `count` is then ignored. */
  'duration-ms'?: number;
  /** Headers a `status` or `headers` fault answers with, replacing any of the same name. */
  headers?: Record<string, string>;
  /** What a `malformed` fault answers with. @default a JSON document cut off in the middle */
  body?: string;
  /** Bytes a `huge-body` fault answers with (a 200 of spaces inside a JSON string). @default 50000000 */
  bytes?: number;
  /** Resources of the page before that a `duplicate-items` fault repeats; resources of each page of `fat-pages`. @default 5; 100 */
  items?: number;
  /** `fat-pages`: the attribute of each resource padded to `attribute-bytes` characters. @default 'description' */
  attribute?: string;
  /** `fat-pages`: the length of the padded attribute. @default 38000 */
  'attribute-bytes'?: number;
}

export interface SeedAgent {
  name?: string;
  status: AgentStatus;
  /** null: none known. @default "127.0.0.1" */
  ipAddress?: string | null;
  /** null: the agent never pinged. @default now */
  lastPingAt?: string | null;
  /** When the agent registered. @default now, or its last ping when that is earlier */
  createdAt?: string;
}

export interface SeedAgentPool {
  name: string;
  organizationScoped?: boolean;
  /** `ws-` ids of workspaces of the same organization. */
  allowedWorkspaces?: string[];
  /** `ws-` ids of workspaces of the same organization that use the pool; while any does, a delete answers 422. */
  workspaces?: string[];
  agents?: SeedAgent[];
}

export interface SeedWorkspace {
  id: string;
  name: string;
  /** `prj-` id of its project. */
  project?: string;
  /** Its tags, each `key:value` or a key alone. */
  tags?: string[];
}

/** A policy set that exists before the first request; a bare id is a native set named by its id. */
export interface SeedPolicySet {
  id: string;
  /** @default the id */
  name?: string;
  /** `native` (whatever the dialect calls it), `opa`, or `tfpolicy` (hosted dialect only). @default 'native' */
  kind?: 'native' | 'opa' | 'tfpolicy';
  description?: string | null;
  /** @default false */
  global?: boolean;
  workspaces?: string[];
  projects?: string[];
  /** Sentinel sets only: evaluated as policy evaluations in the agent, not as policy checks. @default false */
  agentEnabled?: boolean;
}

/** The edition's limits (`GET /organizations/:org/entitlement-set`); null or absent: no limit. */
export interface SeedEntitlements {
  policySetLimit?: number | null;
  policyLimit?: number | null;
  versionedPolicySetLimit?: number | null;
}

export interface SeedProject {
  id: string;
  name: string;
}

/** One policy's outcome in a seeded run: the set that evaluated it, its status, the level it had then. */
export interface SeedRunOutcome {
  policy: string;
  /** The policy set's name. */
  set: string;
  status: 'passed' | 'failed' | 'errored';
  /** @default hard-mandatory (native), mandatory (opa) */
  level?: string;
  /** @default 'native' */
  kind?: 'native' | 'opa';
  /** Lines the policy printed. */
  print?: string[];
  /**
   * How the run reported it: a policy check, or a policy evaluation. @default `check` for a native set that is not
   * agent-enabled (a set the seed does not hold counts as one), `evaluation` otherwise
   */
  via?: 'check' | 'evaluation';
}

/** A run that exists before the first request, with what its policy evaluations found. */
export interface SeedRun {
  /** @default a new `run-` id */
  id?: string;
  /** A `ws-` id of the organization. */
  workspace: string;
  createdAt: string;
  /** A run status word; before its `post_plan` stage ends (`planning`, …) its evaluations are running. @default 'applied' */
  status?: string;
  /** The evaluation ended so instead of with outcomes (an `errored` one's sets carry an error); `queued`: never started. */
  evaluation?: 'unreachable' | 'errored' | 'canceled' | 'queued';
  /** The kind of that evaluation, when no outcome names one. @default 'native' */
  kind?: 'native' | 'opa';
  outcomes?: SeedRunOutcome[];
  /** The policy check ended so instead of with outcomes. */
  check?: 'unreachable' | 'errored' | 'canceled' | 'overridden';
  /** false: the check's result gives only counts, no `sentinel` detail. @default true */
  checkDetail?: boolean;
  /** The `post_plan` task stage ended so, with no evaluation. */
  stage?: 'errored' | 'unreachable' | 'canceled';
  /** @default false */
  planOnly?: boolean;
  /** @default false */
  isDestroy?: boolean;
  /** @default false */
  refreshOnly?: boolean;
  /** @default 'tfe-api' */
  source?: string;
  /** @default 'manual' */
  triggerReason?: string;
}

export interface SeedOrganization {
  name: string;
  /** @default 1 */
  maxAgentPools?: number;
  workspaces?: SeedWorkspace[];
  /** Projects by id and name, for `filter[allowed_projects][name]` (pools may allow any `prj-` id). */
  projects?: SeedProject[];
  /** Policy sets: `polset-` ids (a native set named by its id) or whole sets. */
  policySets?: Array<string | SeedPolicySet>;
  /** @default no limits */
  entitlements?: SeedEntitlements;
  agentPools?: SeedAgentPool[];
  /** Runs of its workspaces and their policy evaluations. */
  runs?: SeedRun[];
}

/**
 * Where the vendor's documents leave room, the emulator takes the reading that is hardest on a
 * client, so that tests catch a client that relies on the lenient one. Each can be switched off.
 */
export interface Behaviour {
  /** A pool PATCH without `organization-scoped` sets it to true, its documented PATCH default. @default true */
  poolPatchResetsScope: boolean;
  /** A policy create carrying both `enforce` and `enforcement-level` answers 422. @default true */
  rejectEnforceWithLevel: boolean;
  /** Act as a server older than mid-2023: read levels only from `enforce`, answer without `enforcement-level`. @default false */
  legacyEnforce: boolean;
  /**
   * The word for the native kind: `native` (the document) or `sentinel` (the hosted service), which then answers 422 to
   * `native`, spells `enforce` paths `<name>.sentinel`, and also takes the beta kind `tfpolicy`. @default 'native'
   */
  nativeKind: NativeKindName;
  /** Lists leave out `relationships.policy-sets` even for policies in sets (`policy-set-count` still says how many). @default false */
  listOmitsPolicySets: boolean;
  /** So does showing one policy, `include=policy_sets` or not. @default false */
  showOmitsPolicySets: boolean;
  /**
   * How long, on the emulator's clock, an uploaded policy set version's ingestion takes: until then every read answers
   * `ingressing`, then its outcome (`ready` or `errored`), read or not. The default is the longest go-tfe's tests allow
   * (`waitForPolicySetVersionUpload`); a huge number plays a version that never settles, 0 one ingested at once.
   * @default 500
   */
  ingestionMs: number;
  /** The run lists ignore `include=task_stages` (undocumented there): their answers carry no `included`. @default false */
  runListsIgnoreInclude: boolean;
}

export function defaultBehaviour(): Behaviour {
  return {
    poolPatchResetsScope: true, rejectEnforceWithLevel: true, legacyEnforce: false, nativeKind: 'native', listOmitsPolicySets: false,
    showOmitsPolicySets: false, ingestionMs: 500, runListsIgnoreInclude: false,
  };
}

export interface Seed {
  /** Default: env API_TOKEN, else a random token. */
  token?: string;
  /** Requests per second per token; 0 turns it off. @default 30 */
  rateLimit?: number;
  /** Requests per minute per token on each of the two run lists, apart from `rateLimit` (`run.mdx`); 0 turns it off. @default 30 */
  runListRateLimit?: number;
  /** How the limit counts a second: a sliding window (the strictest reading) or fixed windows. @default 'sliding' */
  rateLimitWindow?: RateLimitWindow;
  organizations: SeedOrganization[];
  faults?: FaultSpec[];
  /** Sets `behaviour.nativeKind` (the seed's top-level `native-kind`). */
  nativeKind?: NativeKindName;
  /** `zero`: every `x-ratelimit-reset` reads 0.0, as in the hosted service's sample answer. @default 'real' */
  rateLimitReset?: 'real' | 'zero';
  /** Switches of the pessimistic readings; unset ones keep their defaults. */
  behaviour?: Partial<Behaviour>;
}
