/**
 * The shared vocabulary of the program: what a policy and an agent pool are, whichever side they come
 * from (the declared repo, the API, the plan). Every stage may import this file; it imports nothing.
 */

export type PolicyKind = 'native' | 'opa';
export type NativeLevel = 'hard-mandatory' | 'soft-mandatory' | 'advisory';
export type OpaLevel = 'mandatory' | 'advisory';
export type EnforcementLevel = NativeLevel | OpaLevel;
export type AgentStatus = 'idle' | 'busy' | 'exited' | 'errored' | 'unknown';

/**
 * The word the API uses for the native kind, in `kind` and in the `enforce` path: the document says `native`, the
 * hosted service `sentinel`. Either is read as the native kind; this one is sent.
 */
export type NativeKindName = 'native' | 'sentinel';

/** The kind word sent for `kind` to an API that calls the native kind `nativeKind`. */
export function wireKind(kind: PolicyKind, nativeKind: NativeKindName): string {
  return kind === 'opa' ? 'opa' : nativeKind;
}

/**
 * The kind a word from the API names, whatever the API calls the native kind (an absent kind is the document's default,
 * native); null for a kind this tool does not know.
 */
export function kindOfWire(word: unknown): PolicyKind | null {
  if (word === 'opa') return 'opa';
  return word === 'native' || word === 'sentinel' || word === undefined || word === null ? 'native' : null;
}

/** Whether a kind read from the API (kept as it came) is one this tool manages. */
export function isPolicyKind(kind: string): kind is PolicyKind {
  return kind === 'native' || kind === 'opa';
}

/** The enforcement levels each kind accepts. */
export const LEVELS_BY_KIND: Readonly<Record<PolicyKind, readonly EnforcementLevel[]>> = {
  native: ['hard-mandatory', 'soft-mandatory', 'advisory'],
  opa: ['mandatory', 'advisory'],
};

/** How strict a level is: a level that rises tightens enforcement. Advisory never blocks a run. */
export const LEVEL_RANK: Readonly<Record<EnforcementLevel, number>> = { advisory: 0, 'soft-mandatory': 1, 'hard-mandatory': 2, mandatory: 2 };

/**
 * A policy's declared rollout (`rollout:` in its settings): the level applied while evidence is gathered (`start`),
 * until at least `cleanRuns` evaluated runs in scope passed it since the rollout began, at most `failingWorkspaces`
 * workspaces' latest evaluated run fails it, and `afterMs` has passed since it began.
 */
export interface RolloutSpec {
  start: EnforcementLevel;
  cleanRuns: number;
  failingWorkspaces: number;
  afterMs: number;
  /** As written, e.g. `7d`. */
  after: string;
}

/**
 * Where a rollout stands, as the policy's ownership marker records it (so any runner finds it): which rollout
 * (`digest`: of the block, the declared level and the code), when it began (ms since the epoch), whether it is
 * still held at its start level or was promoted.
 */
export interface RolloutRecord {
  digest: string;
  startedAt: number;
  state: 'held' | 'promoted';
}
/**
 * The run statuses after which nothing of a run changes, its policy evaluations included (the vendor's client's
 * `RunStatus` words); every other status, and one this tool does not know, is a run still under way.
 */
export const FINAL_RUN_STATUSES: ReadonlySet<string> = new Set([
  'applied', 'planned_and_finished', 'errored', 'discarded', 'canceled', 'force_canceled', 'policy_soft_failed',
]);

/**
 * What one run says of one policy, the one union of the evidence (api/evidence-summary.ts makes it, plan/ reads it):
 * `passed` and `failed` evaluated it; `errored`, `unreachable` and `canceled` (a check, an evaluation or a task stage
 * ended so without naming it) and `counts-only` (a policy check failed something, but gives only counts, not which
 * policy) did not say, and never count as clean.
 */
export type PolicyRunOutcome = 'passed' | 'failed' | 'errored' | 'unreachable' | 'canceled' | 'counts-only';

/** How the service reports a policy's results: a policy check (a Sentinel set not agent-enabled), a policy evaluation, or either. */
export type PolicyReport = 'check' | 'evaluation' | 'either';

/**
 * What kind of run it is (go-tfe `Run`): a speculative (`plan-only`) or refresh-only run cannot apply; a destroy run
 * applies a destruction, not the configuration.
 */
export interface RunKind {
  planOnly: boolean;
  refreshOnly: boolean;
  isDestroy: boolean;
  /** As sent ('' when absent): `tfe-api`, `tfe-ui`, `tfe-configuration-version`, … */
  source: string;
  triggerReason: string;
}

/** The largest policy code file the API accepts, in bytes. */
export const MAX_CODE_BYTES = 10_485_760;

/**
 * Which live resources a source owns: `marker`, the policies whose description carries its ownership
 * marker; `organization`, every policy and pool of the organization.
 */
export type Ownership = 'marker' | 'organization';

/** A live policy as the planner compares it, with its downloaded code. */
export interface LivePolicy {
  id: string;
  name: string;
  kind: PolicyKind;
  /** As stored, ownership marker included. */
  description: string | null;
  /** Set only for opa policies. */
  query: string | null;
  enforcementLevel: EnforcementLevel;
  /** `polset-` ids. */
  policySetIds: string[];
  /** How many sets hold the policy (`policy-set-count`); when above the ids' count, the list left the ids out. Absent: not known. */
  policySetCount?: number;
  /** Time of the last code upload; null until the first upload. */
  updatedAt: string | null;
  /**
   * The downloaded code, kept only when it differs from the declared code (a plan shows it); null otherwise, and when
   * no code was uploaded yet or it was not fetched (the policy is not declared with this kind).
   */
  code: string | null;
  /** sha256 of the code as the planner compares it (see src/code-content.ts); null when unknown (never uploaded, not fetched). */
  codeDigest: string | null;
}

export interface LiveAgent {
  id: string;
  name: string | null;
  /** As the API sent it: a status this tool does not know is kept, and matches no clean-up rule. */
  status: AgentStatus | (string & {});
  /** null when the agent never pinged; agent clean-up then counts from `createdAt`. */
  lastPingAt: string | null;
  createdAt: string | null;
}

export interface LivePool {
  id: string;
  name: string;
  organizationScoped: boolean;
  agentCount: number;
  allowedWorkspaceIds: string[];
  /** `prj-` ids of the projects whose workspaces may use the pool (the hosted service's `allowed-projects`). */
  allowedProjectIds: string[];
  /** `ws-` ids of workspaces refused the pool although their project is allowed (`excluded-workspaces`). */
  excludedWorkspaceIds: string[];
  /** `ws-` ids of the workspaces that use the pool now: while any does, the service refuses to delete it. */
  workspaceIds: string[];
  /** Filled for pools whose declaration asks for agent clean-up, and for every pool when the pass reads pool health. */
  agents: LiveAgent[];
  /** The pool's tokens (never their texts); read only for pools whose declaration has `tokens:`, absent otherwise. */
  tokens?: LiveToken[];
}

/** An agent pool's token as the plan compares it: metadata only. */
export interface LiveToken {
  id: string;
  description: string;
  /** null when the answer lacked it: such a token is never judged old. */
  createdAt: string | null;
  /** null: never used. */
  lastUsedAt: string | null;
}

/** A live policy of a kind this tool does not know (the vendor's beta `tfpolicy`): never updated, replaced or deleted. */
export interface ForeignPolicy {
  id: string;
  name: string;
  /** The kind as the API sent it. */
  kind: string;
}

/** A version of a live policy set, as the plan reports it. */
export interface LiveSetVersion {
  id: string;
  /** `pending`, `ingressing`, `ready`, `errored`, `canceled`, or what the service sent. */
  status: string;
  /** The service's reason of an `errored` version; null otherwise. */
  errorMessage: string | null;
}

/** A live policy set as the planner compares it. */
export interface LivePolicySet {
  id: string;
  name: string;
  kind: PolicyKind;
  /** As stored, ownership marker (and the digest of the content it records) included. */
  description: string | null;
  global: boolean;
  overridable: boolean | null;
  agentEnabled: boolean;
  policyToolVersion: string | null;
  /** Whether its content comes in versions (uploaded, or from VCS) rather than individual policies. */
  versioned: boolean;
  /** Backed by a VCS repository: this tool never uploads a version to it. */
  vcsBacked: boolean;
  /** Its parameters, read only when its declaration manages them (a sensitive one's value reads ""); null: not read. */
  parameters: Array<{ id: string; key: string; value: string; sensitive: boolean }> | null;
  /** Where it is enforced: `ws-` and `prj-` ids, and those excluded. */
  workspaceIds: string[];
  projectIds: string[];
  workspaceExclusionIds: string[];
  projectExclusionIds: string[];
  /** Its tag selectors, `scoping-type` and match, as read; absent where the reader had none (older answers, fixtures). */
  tagSelectors?: TagSelector[];
  scopingType?: string | null;
  tagMatch?: TagMatch | null;
  /** The newest successful version (what the service enforces), and the newest of all; null when none. */
  currentVersionId: string | null;
  newestVersion: LiveSetVersion | null;
}

/** What the planner knows of one organization. */
export interface LiveState {
  policies: LivePolicy[];
  pools: LivePool[];
  /** Policy sets of known kinds; absent when the source declares none (they are then not read). */
  policySets?: LivePolicySet[];
  /** The organization's workspaces and projects, read only when a declaration names one by name. */
  workspaces?: Array<{ id: string; name: string; tags?: WorkspaceTag[] }>;
  projects?: Array<{ id: string; name: string }>;
  /** Policies of kinds this tool does not know; the plan names them once and leaves them alone. Absent: none. */
  foreignPolicies?: ForeignPolicy[];
}

/** A workspace's tag: a key with a value, or a key alone (value null). */
export interface WorkspaceTag {
  key: string;
  value: string | null;
}

/** One of a set's tag selectors (go-tfe's `PolicySetTagSelector`): `tag-key`, `tag-value` (null: a key alone), `is-exclude`. */
export interface TagSelector {
  key: string;
  value: string | null;
  exclude: boolean;
}

/** How a set's inclusion selectors combine: `any` holds a workspace with one of them, `all` one with every one. */
export type TagMatch = 'any' | 'all';

/**
 * Whether a set scoped by tag selectors holds a workspace with `tags`, before its global flag: 'excluded' when an
 * exclusion selector matches one of its tags, 'included' when its inclusion selectors do (`match`), else 'none'. A
 * selector of a key alone matches only a tag of that key alone (the vendor's `tfe_tag_policy_set`).
 */
export function tagSelection(selectors: readonly TagSelector[], match: TagMatch, tags: readonly WorkspaceTag[]): 'included' | 'excluded' | 'none' {
  const matches = (s: TagSelector) => tags.some((t) => t.key === s.key && t.value === s.value);
  if (selectors.some((s) => s.exclude && matches(s))) return 'excluded';
  const include = selectors.filter((s) => !s.exclude);
  if (include.length === 0) return 'none';
  return (match === 'all' ? include.every(matches) : include.some(matches)) ? 'included' : 'none';
}

/** `env:prod`, `team`, `!sandbox`: a selector as plans and files write it. */
export function selectorText(s: TagSelector): string {
  return `${s.exclude ? '!' : ''}${s.key}${s.value === null ? '' : `:${s.value}`}`;
}

/** A tag written `key:value` or `key` alone. */
export function parseTag(text: string): WorkspaceTag {
  const at = text.indexOf(':');
  return at < 0 ? { key: text, value: null } : { key: text.slice(0, at), value: text.slice(at + 1) };
}
