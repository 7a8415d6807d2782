import type { AgentStatus, EnforcementLevel, PolicyKind } from '../model.js';

/** A policy as the declared repo states it. */
export interface DeclaredPolicy {
  name: string;
  kind: PolicyKind;
  /** Code file, relative to the source root, with `/` separators. */
  file: string;
  /** Absolute path of the code file, for streaming the upload. */
  absolutePath: string;
  /** Settings file relative to the source root, or null when there is none. */
  settingsFile: string | null;
  /** The code exactly as in the file. */
  code: string;
  /** Without any ownership marker; null when absent. */
  description: string | null;
  enforcementLevel: EnforcementLevel;
  /** opa only; null for native. */
  query: string | null;
  /** null when the settings do not name any (not managed). */
  policySets: string[] | null;
}

export interface AgentCleanup {
  statuses: AgentStatus[];
  /** Agents whose last ping is older than this many milliseconds are deleted. */
  afterMs: number;
  /** As written, e.g. `1h`, for display. */
  after: string;
}

export interface DeclaredPool {
  name: string;
  file: string;
  organizationScoped: boolean;
  /** null: not managed. */
  allowedWorkspaces: string[] | null;
  previousNames: string[];
  agentCleanup: AgentCleanup | null;
}

export interface DeclaredState {
  policies: DeclaredPolicy[];
  pools: DeclaredPool[];
}

export interface ReadOptions {
  /** Number of agent pools the organization allows; default 1. */
  maxAgentPools?: number;
}
