/** The emulator's records: one organization, policy, pool or agent as the store holds it. */
import type { AgentStatus, EnforcementLevel, PolicyKind } from '../model.js';

export interface OrgRecord {
  name: string;
  maxAgentPools: number;
  /** id → name */
  workspaces: Map<string, string>;
  policySets: Set<string>;
}

export interface PolicyRecord {
  id: string;
  org: string;
  name: string;
  description: string | null;
  kind: PolicyKind;
  query: string | null;
  level: EnforcementLevel;
  policySetIds: string[];
  updatedAt: string | null;
  code: Buffer | null;
}

export interface PoolRecord {
  id: string;
  org: string;
  name: string;
  createdAt: string;
  organizationScoped: boolean;
  allowedWorkspaceIds: string[];
  /** Workspaces attached to the pool; the emulator has no endpoint that attaches one. */
  workspaceIds: string[];
}

export interface AgentRecord {
  id: string;
  poolId: string;
  name: string | null;
  status: AgentStatus;
  ipAddress: string | null;
  /** null: the agent never pinged. */
  lastPingAt: string | null;
  createdAt: string;
}
