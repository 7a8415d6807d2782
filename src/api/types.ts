/** The wire resources of the Policy and Agent Pool Management API, as the client returns them. */
import type { AgentStatus, EnforcementLevel, PolicyKind, TagMatch, TagSelector, WorkspaceTag } from '../model.js';
import type { StreamedBody } from './http-types.js';
import type { StateSeal } from '../state-seal.js';
import type { RunApi } from './run-types.js';

export interface Policy {
  id: string;
  name: string;
  description: string | null;
  /** As sent: a kind this tool manages, or another kept as it came (the beta `tfpolicy`; `''` when what it sent is not text). */
  kind: PolicyKind | (string & {});
  /** Present only for opa policies; null otherwise. */
  query: string | null;
  enforcementLevel: EnforcementLevel;
  policySetCount: number;
  /** `polset-` ids; a missing relationship is read as empty. */
  policySetIds: string[];
  /** Time of the last code upload; null until the first upload. */
  updatedAt: string | null;
  organization: string;
  links: { self: string; upload: string; download: string | null };
}

export interface AgentPool {
  id: string;
  name: string;
  createdAt: string;
  organizationScoped: boolean;
  agentCount: number;
  workspaceIds: string[];
  allowedWorkspaceIds: string[];
  allowedProjectIds: string[];
  excludedWorkspaceIds: string[];
}

export interface Agent {
  id: string;
  name: string | null;
  /** As sent; a status this tool does not know is kept. */
  status: AgentStatus | (string & {});
  ipAddress: string | null;
  /** null when the agent never pinged. */
  lastPingAt: string | null;
  /** When the agent registered; null when the answer lacks it. */
  createdAt: string | null;
}

/** An agent pool's authentication token (go-tfe's `AgentToken`), as every answer but the create's gives it: no text. */
export interface AgentToken {
  id: string;
  description: string;
  /** null when the answer lacks it. */
  createdAt: string | null;
  /** null: never used. */
  lastUsedAt: string | null;
  /** The `created-by` user's id; null when the answer lacks it. */
  createdBy: string | null;
}

/** A token just made: its text is in this answer only, and goes nowhere but where it is delivered. */
export interface MadeAgentToken extends AgentToken {
  token: string;
}

export interface CreatePolicyInput {
  name: string;
  kind: PolicyKind;
  description: string | null;
  enforcementLevel: EnforcementLevel;
  /** Required for opa, must be absent (null) for native. */
  query: string | null;
  policySetIds: string[];
}

/** The policy an update is about: its name and kind name the deprecated `enforce` path. */
export type PolicyRef = Pick<Policy, 'id' | 'name' | 'kind'>;

/** A policy of a kind this tool manages. */
export type ManagedPolicy = Policy & { kind: PolicyKind };

export interface UpdatePolicyInput {
  description?: string | null;
  enforcementLevel?: EnforcementLevel;
  query?: string;
}

export interface CreateAgentPoolInput {
  name: string;
  organizationScoped: boolean;
  /** null: not sent. */
  allowedWorkspaceIds: string[] | null;
  /** null or absent: not sent. */
  allowedProjectIds?: string[] | null;
  /** null or absent: not sent. */
  excludedWorkspaceIds?: string[] | null;
}

/**
 * A pool PATCH always carries the name and the scope: the API documents `organization-scoped` as
 * defaulting to true on PATCH, so leaving it out could open a restricted pool to the whole organization.
 */
export interface UpdateAgentPoolInput {
  name: string;
  organizationScoped: boolean;
  /** Replaces the whole list; not sent when absent. */
  allowedWorkspaceIds?: string[];
  /** Replaces the whole list; not sent when absent. */
  allowedProjectIds?: string[];
  /** Replaces the whole list; not sent when absent. */
  excludedWorkspaceIds?: string[];
}

export interface ListPoliciesOptions {
  search?: string;
  kind?: PolicyKind;
  includePolicySets?: boolean;
}

export type AgentPoolSort = 'name' | '-name' | 'created-at' | '-created-at';

export interface ListAgentPoolsOptions {
  q?: string;
  sort?: AgentPoolSort;
  /** `filter[allowed_workspaces][name]` */
  allowedWorkspaceName?: string;
  includeWorkspaces?: boolean;
}

export interface AgentPoolList {
  pools: AgentPool[];
  statusCounts: { total: number; matching: number };
}

/** What the rest of the program needs of the API. `ApiClient` (src/api/client.ts) implements it. */
export interface PolicyApi extends PolicySetApi {
  /** Runs and what their policy evaluations found (runs.ts), through the same transport and signal. */
  readonly runs: RunApi;
  /**
   * HMAC-SHA256 (hex) of `text` keyed with the API token: a digest of a secret (a sensitive parameter) that only the
   * holder of the token can check a guess against. Absent on an API that holds no token.
   */
  keyedDigest?(text: string): string;
  /**
   * The seal of the state dir's files, keyed from the API token and URL (`state-seal.ts`): what a repo cannot forge.
   * Absent on an API that holds no token; the state dir then trusts nothing another process wrote.
   */
  stateSeal?(): StateSeal;
  /**
   * The same API whose every request ends once `signal` aborts (a pass that timed out, a shutdown). Called on an API
   * bound already, its requests end once either signal aborts, and count for the first one's `reached`.
   */
  withSignal(signal: AbortSignal): PolicyApi;
  /**
   * Whether the requests made through `withSignal(signal)` could use the API: false once one could not (no answer or a
   * server error after retries, or a refused token), true once one got another answer, null before any.
   */
  reached(signal: AbortSignal): boolean | null;
  listPolicies(organization: string, options?: ListPoliciesOptions): Promise<Policy[]>;
  /** `includePolicySets`: asks for the policy-set relationship with `include=policy_sets`. */
  getPolicy(id: string, options?: { includePolicySets?: boolean }): Promise<Policy>;
  /**
   * When the create's answer is lost, the policy of its name is looked up and taken only when `owns` says it is this
   * create's (see `refuseMet` in plan/pairs.ts); otherwise the create is sent again, and the service's answer (a 422
   * when the name is taken) is what the caller sees.
   */
  createPolicy(organization: string, input: CreatePolicyInput, owns: (found: Policy) => boolean): Promise<Policy>;
  /**
   * Sends the code bytes as they are, whole or as a body read for each try; refuses more than 10,485,760 bytes before
   * sending. Resolves with the answer's policy document, if any; rejects with what a body's chunks throw.
   */
  uploadPolicy(id: string, code: Uint8Array | StreamedBody): Promise<Policy | null>;
  /** Follows `links.download` and its redirect; returns the raw text, or null when the policy has no code (404). */
  downloadPolicy(policy: Policy): Promise<string | null>;
  /** The digest of the code (as `codeDigest` gives it), hashed as it streams; the text too when at most `keepTextBytes` bytes. null on 404. */
  downloadPolicyDigest(policy: Policy, keepTextBytes: number): Promise<{ digest: string; text: string | null } | null>;
  updatePolicy(policy: PolicyRef, input: UpdatePolicyInput): Promise<Policy>;
  /** A 404 counts as deleted: a retry after a lost answer, or someone deleted it already. */
  deletePolicy(id: string): Promise<void>;
  listAgentPools(organization: string, options?: ListAgentPoolsOptions): Promise<AgentPoolList>;
  getAgentPool(id: string, options?: { includeWorkspaces?: boolean }): Promise<AgentPool>;
  /**
   * As `createPolicy`: when the answer is lost, the pool of its name is taken only when `owns` says it is this create's
   * (`ownsMet` in plan/pairs.ts); otherwise the create is sent again. @default owns none
   */
  createAgentPool(organization: string, input: CreateAgentPoolInput, owns?: (found: AgentPool) => boolean): Promise<AgentPool>;
  updateAgentPool(id: string, input: UpdateAgentPoolInput): Promise<AgentPool>;
  /** A 404 counts as deleted. */
  deleteAgentPool(id: string): Promise<void>;
  listAgents(poolId: string, options?: { lastPingSince?: string }): Promise<Agent[]>;
  getAgent(id: string): Promise<Agent>;
  /** A 412 (the agent is idle or busy) is thrown as ApiError with status 412; a 404 counts as deleted. */
  deleteAgent(id: string): Promise<void>;
  /** Every token of the pool (all pages), without their texts. */
  listAgentTokens(poolId: string): Promise<AgentToken[]>;
  getAgentToken(id: string): Promise<AgentToken>;
  /**
   * Makes a token; its text is learned by the redactor before the answer is returned. When the answer is lost, the
   * tokens of that description not in `known` (the ones made by the lost try, whose text is lost with it) are deleted
   * before it is sent again, so no token is left that nobody holds.
   */
  createAgentToken(poolId: string, description: string, known: readonly string[]): Promise<MadeAgentToken>;
  /** A 404 counts as deleted. */
  deleteAgentToken(id: string): Promise<void>;
}

/** What a policy set's `include` may ask for; sent with `_`, as the vendor's client does (the service takes `-` too). */
export type PolicySetInclude =
  | 'policies'
  | 'workspaces'
  | 'projects'
  | 'workspace_exclusions'
  | 'project_exclusions'
  | 'current_version'
  | 'newest_version';

/** `pending` until the archive is uploaded, `ingressing` while the service reads it, then `ready` or `errored`; `canceled`. */
export type PolicySetVersionStatus = 'pending' | 'ingressing' | 'ready' | 'errored' | 'canceled';

export interface PolicySetVersion {
  id: string;
  /** As sent; a status this tool does not know is kept. */
  status: PolicySetVersionStatus | (string & {});
  /** `tfe-api` for an uploaded version; a VCS provider's name otherwise; null when absent. */
  source: string | null;
  /** The service's reason of an `errored` version; null otherwise. */
  errorMessage: string | null;
  /** The service's short error code, when it sends one. */
  error: string | null;
  /** `pending-at`, `ingressing-at`, `ready-at`, `errored-at`, ...: each one sent, as sent. */
  statusTimestamps: Record<string, string>;
  createdAt: string | null;
  updatedAt: string | null;
  /** The set it belongs to (`polset-` id), when the answer names it. */
  policySetId: string | null;
  /** Where the archive goes (`links.upload`): present while the version waits for it. */
  uploadUrl: string | null;
}

export interface PolicySet {
  id: string;
  name: string;
  description: string | null;
  /** `native` for the native kind whatever the API calls it; see `foreignKind`. */
  kind: PolicyKind;
  /** The kind as sent when this tool does not know it (the beta `tfpolicy`; `kind` is then meaningless); null otherwise. */
  foreignKind: string | null;
  global: boolean;
  /**
   * null when the answer leaves it out or sends null: a native set holds it only while agent-enabled; an opa set
   * always (false when never given).
   */
  overridable: boolean | null;
  agentEnabled: boolean;
  policyToolVersion: string | null;
  policiesPath: string | null;
  /** `policy-update-patterns`: globs of the files whose change makes a VCS set ingest a new version; empty when none. */
  policyUpdatePatterns: string[];
  /** True for a set whose content comes in versions (uploaded or from VCS) rather than individual policies. */
  versioned: boolean;
  /** True when the set is backed by a VCS repository (`vcs-repo` is set). */
  vcsBacked: boolean;
  policyCount: number;
  workspaceCount: number;
  projectCount: number;
  createdAt: string | null;
  updatedAt: string | null;
  organization: string;
  /** Ids of the to-many relationships; a relationship the answer leaves out reads as empty. */
  policyIds: string[];
  workspaceIds: string[];
  projectIds: string[];
  workspaceExclusionIds: string[];
  projectExclusionIds: string[];
  /** `tag-selectors` (go-tfe's `PolicySetTagSelectorAttr`); empty when the answer has none. */
  tagSelectors: TagSelector[];
  /** `scoping-type` as sent (`tag`, `explicit`); null when the answer leaves it out. */
  scopingType: string | null;
  /** `tag-selector-match`; null when the answer leaves it out or sends a word this tool does not know. */
  tagMatch: TagMatch | null;
  /** The newest successful version (`current-version`), and the newest of all (`newest-version`); null when none. */
  currentVersionId: string | null;
  newestVersionId: string | null;
  /** The versions themselves when asked with `include` and the answer holds them; null otherwise. */
  currentVersion: PolicySetVersion | null;
  newestVersion: PolicySetVersion | null;
}

export interface ListPolicySetsOptions {
  /** `search[name]`: names containing it. */
  search?: string;
  /** `filter[kind]`, in the API's word for the native kind. */
  kind?: PolicyKind;
  /** `filter[versioned]`. */
  versioned?: boolean;
  include?: readonly PolicySetInclude[];
}

/** The settings of a set, as sent on create; null or absent: not sent (the service's default). */
export interface CreatePolicySetInput {
  name: string;
  description: string | null;
  kind: PolicyKind;
  global: boolean;
  overridable?: boolean | null;
  agentEnabled?: boolean | null;
  policyToolVersion?: string | null;
  policiesPath?: string | null;
  policyUpdatePatterns?: readonly string[];
  /** Individual policies; never sent together with a VCS repository (the service refuses the pair). */
  policyIds?: readonly string[];
  /** Only with `global: false`: the service refuses both. */
  workspaceIds?: readonly string[];
  projectIds?: readonly string[];
  workspaceExclusionIds?: readonly string[];
  projectExclusionIds?: readonly string[];
  /** Sent as the `tag-selectors` attribute; with inclusion selectors, the set is scoped by tags (never beside workspaces or projects). */
  tagSelectors?: readonly TagSelector[];
  scopingType?: 'tag' | 'explicit';
  tagMatch?: TagMatch;
}

/** Only the settings given are sent; the kind never changes (a kind change is a replace). */
export interface UpdatePolicySetInput {
  name?: string;
  description?: string | null;
  global?: boolean;
  overridable?: boolean;
  agentEnabled?: boolean;
  policyToolVersion?: string | null;
  policiesPath?: string | null;
  policyUpdatePatterns?: readonly string[];
  scopingType?: 'tag' | 'explicit';
  tagMatch?: TagMatch;
}

/** The to-many relationships of a set that change by `POST`/`DELETE /policy-sets/:id/relationships/<name>`. */
export type PolicySetRelationship = 'policies' | 'workspaces' | 'projects' | 'workspace-exclusions' | 'project-exclusions';

/** A policy-set parameter (`vars`, category `policy-set`). */
export interface PolicySetParameter {
  id: string;
  key: string;
  /** The value as the service answers it: always `""` for a sensitive parameter, whatever was sent. */
  value: string;
  sensitive: boolean;
  category: string;
}

export interface CreatePolicySetParameterInput {
  key: string;
  value: string;
  sensitive: boolean;
}

export interface UpdatePolicySetParameterInput {
  key?: string;
  value?: string;
  sensitive?: boolean;
}

export interface Workspace {
  id: string;
  name: string;
  /** `prj-` id of its project; null when the answer leaves it out. */
  projectId: string | null;
  /** Its effective tags, read only when the list was asked for them (`tags`); absent otherwise. */
  tags?: WorkspaceTag[];
}

export interface ListWorkspacesOptions {
  /** `search[name]`: a fuzzy search on the name. */
  search?: string;
  /** `search[wildcard-name]`: `*` as prefix, suffix or both. */
  wildcardName?: string;
  /** `include=effective_tag_bindings`: each workspace with its tags (go-tfe's `WSEffectiveTagBindings`). */
  tags?: boolean;
}

export interface Project {
  id: string;
  name: string;
}

export interface ListProjectsOptions {
  /** `filter[names]`: exact names, case-insensitive, sent comma-separated. */
  names?: readonly string[];
}

/** What an organization's edition allows (`GET /organizations/:org/entitlement-set`); null: no limit, or not said. */
export interface Entitlements {
  id: string;
  policySetLimit: number | null;
  policyLimit: number | null;
  versionedPolicySetLimit: number | null;
  /** Every other attribute as sent (flags such as `sentinel`, `agents`), for messages. */
  attributes: Record<string, unknown>;
}

/** The policy-set side of the API; part of PolicyApi. */
export interface PolicySetApi {
  /** Every page. */
  listPolicySets(organization: string, options?: ListPolicySetsOptions): Promise<PolicySet[]>;
  getPolicySet(id: string, options?: { include?: readonly PolicySetInclude[] }): Promise<PolicySet>;
  /** A lost answer is looked up by the set's exact name and taken only when `owns` says it is this create's. */
  createPolicySet(organization: string, input: CreatePolicySetInput, owns?: (found: PolicySet) => boolean): Promise<PolicySet>;
  updatePolicySet(id: string, input: UpdatePolicySetInput): Promise<PolicySet>;
  /** A 404 counts as deleted. */
  deletePolicySet(id: string): Promise<void>;
  /**
   * `POST /policy-sets/:id/relationships/<relationship>`; 204. Nothing is sent for an empty list. `policies`: a
   * policy in the set already stays.
   */
  addToPolicySet(setId: string, relationship: PolicySetRelationship, ids: readonly string[]): Promise<void>;
  /** `DELETE` of the same; a 404 (no such set) counts as done. Nothing is sent for an empty list. */
  removeFromPolicySet(setId: string, relationship: PolicySetRelationship, ids: readonly string[]): Promise<void>;
  /** `POST` / `DELETE /policy-sets/:id/tag-selectors` with `{"data": [selector, …]}` (go-tfe's); nothing is sent for none. */
  addTagSelectors(setId: string, selectors: readonly TagSelector[]): Promise<void>;
  removeTagSelectors(setId: string, selectors: readonly TagSelector[]): Promise<void>;
  /** `POST /policy-sets/:id/versions` with no body: a `pending` version with its `uploadUrl`. */
  createPolicySetVersion(setId: string): Promise<PolicySetVersion>;
  /**
   * `PUT` the archive to the version's `links.upload` as `application/octet-stream`, never with the token (wherever the
   * link points, as the vendor's client does). Throws when the version has no upload link.
   */
  uploadPolicySetVersion(version: PolicySetVersion, archive: Uint8Array | StreamedBody): Promise<void>;
  getPolicySetVersion(id: string): Promise<PolicySetVersion>;
  /** Every page; a sensitive parameter's value reads `""`. */
  listPolicySetParameters(setId: string): Promise<PolicySetParameter[]>;
  createPolicySetParameter(setId: string, input: CreatePolicySetParameterInput): Promise<PolicySetParameter>;
  updatePolicySetParameter(setId: string, parameterId: string, input: UpdatePolicySetParameterInput): Promise<PolicySetParameter>;
  /** A 404 counts as deleted. */
  deletePolicySetParameter(setId: string, parameterId: string): Promise<void>;
  /** Every page, 100 at a time. */
  listWorkspaces(organization: string, options?: ListWorkspacesOptions): Promise<Workspace[]>;
  /** Every page. */
  listProjects(organization: string, options?: ListProjectsOptions): Promise<Project[]>;
  getEntitlements(organization: string): Promise<Entitlements>;
}
