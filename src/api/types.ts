/** The wire resources of the Policy and Agent Pool Management API, as the client returns them. */
import type { AgentStatus, EnforcementLevel, PolicyKind } from '../model.js';
import type { StreamedBody } from './http-types.js';

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
export interface PolicyApi {
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
  createAgentPool(organization: string, input: CreateAgentPoolInput): Promise<AgentPool>;
  updateAgentPool(id: string, input: UpdateAgentPoolInput): Promise<AgentPool>;
  /** Adds the policies to the policy set (`POST /policy-sets/:id/relationships/policies`); a policy in it already stays. */
  addPoliciesToSet(setId: string, policyIds: readonly string[]): Promise<void>;
  /** Removes the policies from the policy set (`DELETE` of the same); a 404 (no such set) counts as done. */
  removePoliciesFromSet(setId: string, policyIds: readonly string[]): Promise<void>;
  /** A 404 counts as deleted. */
  deleteAgentPool(id: string): Promise<void>;
  listAgents(poolId: string, options?: { lastPingSince?: string }): Promise<Agent[]>;
  getAgent(id: string): Promise<Agent>;
  /** A 412 (the agent is idle or busy) is thrown as ApiError with status 412; a 404 counts as deleted. */
  deleteAgent(id: string): Promise<void>;
}
