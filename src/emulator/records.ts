/** The emulator's records: one organization, policy, pool or agent as the store holds it. */
import type { AgentStatus } from './types.js';
import { LEVELS_BY_KIND, type EnforcementLevel, type NativeKindName, type PolicyKind, type TagMatch, type TagSelector, type WorkspaceTag } from '../model.js';

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
  /** workspace id → its project's id, for the workspaces seeded with one. */
  workspaceProjects: Map<string, string>;
  /** Workspace id → its tags (key and value, or a key alone). */
  workspaceTags: Map<string, WorkspaceTag[]>;
  /** By id, in creation order. */
  policySets: Map<string, PolicySetRecord>;
  entitlements: EntitlementRecord;
}

/** The edition's limits; null: no limit. */
export interface EntitlementRecord {
  policySetLimit: number | null;
  policyLimit: number | null;
  versionedPolicySetLimit: number | null;
}

export interface PolicySetRecord {
  id: string;
  org: string;
  name: string;
  description: string | null;
  /** `native` whatever the API calls it; `tfpolicy` only under `sentinel`. */
  kind: RecordKind;
  global: boolean;
  overridable: boolean | null;
  agentEnabled: boolean;
  policyToolVersion: string | null;
  policiesPath: string | null;
  /** Glob patterns of the files whose change makes a VCS set ingest a new version; stored and answered as sent. */
  policyUpdatePatterns: string[];
  /** As sent; null for a set without one. Its policies then come from the repository, never by relationship. */
  vcsRepo: Record<string, unknown> | null;
  workspaceIds: string[];
  projectIds: string[];
  workspaceExclusionIds: string[];
  projectExclusionIds: string[];
  /** Tag selectors (`tag-selectors`): a set scoped by tags holds the workspaces they select. */
  tagSelectors: TagSelector[];
  /** `scoping-type`: `tag` once the set is scoped by inclusion selectors, else `explicit`. */
  scopingType: 'tag' | 'explicit';
  /** `tag-selector-match`: how its inclusion selectors combine. */
  tagMatch: TagMatch;
  /** `polsetver-` ids, oldest first. */
  versionIds: string[];
  /** The newest version that became ready. */
  currentVersionId: string | null;
  createdAt: string;
  updatedAt: string;
  /** By id, in creation order. */
  parameters: Map<string, ParameterRecord>;
}

export type VersionStatus = 'pending' | 'ingressing' | 'ready' | 'errored' | 'canceled';

export interface VersionRecord {
  id: string;
  setId: string;
  /** What a read answers now; `ingressing` once uploaded, until its ingestion ends (`settlesAt`). */
  status: VersionStatus;
  /** Where ingestion ends, once the archive is read: the version's status from `settlesAt` on. */
  outcome: { status: 'ready' | 'errored'; errorMessage: string | null; policyCount: number; policies: Array<{ name: string; level: string }> } | null;
  /** When, on the emulator's clock, its ingestion ends (`Behaviour.ingestionMs` after the upload); null before the upload. */
  settlesAt: number | null;
  errorMessage: string | null;
  /** `pending-at`, `ingressing-at`, `ready-at`, `errored-at`. */
  statusTimestamps: Record<string, string>;
  createdAt: string;
  updatedAt: string;
  /** The key of its upload link, and until when the link takes the archive; null once used. */
  uploadKey: string | null;
  uploadExpires: number;
  /** Policies the archive's config file declares, once ready. */
  policyCount: number;
  /** Those policies with their levels, once ready: what a run evaluates of the set while this version is current. */
  policies: Array<{ name: string; level: string }>;
}

export interface ParameterRecord {
  id: string;
  key: string;
  /** Never answered for a sensitive parameter. */
  value: string;
  sensitive: boolean;
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

/** An agent pool's authentication token (go-tfe's `AgentToken`); its text is answered only by the create. */
export interface TokenRecord {
  id: string;
  poolId: string;
  description: string;
  /** The secret text. */
  token: string;
  createdAt: string;
  /** null: never used. */
  lastUsedAt: string | null;
  /** The user whose API token made it. */
  createdBy: string;
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
