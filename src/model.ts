/**
 * The shared vocabulary of the program: what a policy and an agent pool are, whichever side they come
 * from (the declared repo, the API, the plan). Every stage may import this file; it imports nothing.
 */

export type PolicyKind = 'native' | 'opa';
export type NativeLevel = 'hard-mandatory' | 'soft-mandatory' | 'advisory';
export type OpaLevel = 'mandatory' | 'advisory';
export type EnforcementLevel = NativeLevel | OpaLevel;
export type AgentStatus = 'idle' | 'busy' | 'exited' | 'errored' | 'unknown';

/** The enforcement levels each kind accepts. */
export const LEVELS_BY_KIND: Readonly<Record<PolicyKind, readonly EnforcementLevel[]>> = {
  native: ['hard-mandatory', 'soft-mandatory', 'advisory'],
  opa: ['mandatory', 'advisory'],
};

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
  status: AgentStatus;
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
  /** Filled only for pools whose declaration asks for agent clean-up. */
  agents: LiveAgent[];
}

/** What the planner knows of one organization. */
export interface LiveState {
  policies: LivePolicy[];
  pools: LivePool[];
}
