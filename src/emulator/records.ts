/** The emulator's records: one organization, policy, pool or agent as the store holds it. */
import type { AgentStatus } from './types.js';
import { LEVELS_BY_KIND, type EnforcementLevel, type NativeKindName, type PolicyKind } from '../model.js';

export type RecordKind = PolicyKind | 'tfpolicy';

/** The levels a record's kind takes: the beta `tfpolicy` takes opa's. */
export function levelsOf(kind: RecordKind): readonly EnforcementLevel[] {
  return LEVELS_BY_KIND[kind === 'tfpolicy' ? 'opa' : kind];
}

/** The word a record's kind is sent as. */
export function kindWord(kind: RecordKind, nativeKind: NativeKindName): string {
  return kind === 'native' ? nativeKind : kind;
}

export interface OrgRecord {
  name: string;
  maxAgentPools: number;
  /** id → name */
  workspaces: Map<string, string>;
  /** id → name */
  projects: Map<string, string>;
  policySets: Set<string>;
}

export interface PolicyRecord {
  id: string;
  org: string;
  name: string;
  description: string | null;
  /** `native` whatever the API calls it (see Behaviour.nativeKind); `tfpolicy`, the vendor's beta kind, only under `sentinel`. */
  kind: RecordKind;
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
  /** `prj-` ids (the hosted service's `allowed-projects`). */
  allowedProjectIds: string[];
  /** `ws-` ids (the hosted service's `excluded-workspaces`). */
  excludedWorkspaceIds: string[];
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
