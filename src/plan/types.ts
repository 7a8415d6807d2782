import type { Agent, AgentPool, Policy } from '../api/types.js';
import type { DeclaredPolicy, DeclaredPool, DeclaredState } from '../declared/types.js';

export type Ownership = 'marker' | 'organization';
export type ResourceType = 'policy' | 'agent-pool' | 'agent';
export type ChangeAction = 'create' | 'update' | 'replace' | 'delete';

/** A live policy with its downloaded code (null when none was uploaded yet). */
export interface LivePolicy extends Policy {
  code: string | null;
}

/** A live pool; `agents` is filled only for pools whose declaration asks for agent clean-up. */
export interface LivePool extends AgentPool {
  agents: Agent[];
}

export interface LiveState {
  policies: LivePolicy[];
  pools: LivePool[];
}

export interface PlanOptions {
  /** Source name; written into the ownership marker. */
  source: string;
  ownership: Ownership;
  prune: boolean;
  allowEmpty: boolean;
  maxDeletes: number;
  force: boolean;
  /** Current time in ms since the epoch (agent clean-up ages). */
  now: number;
}

export interface FieldChange {
  before: unknown;
  after: unknown;
}

interface ChangeBase {
  name: string;
  /** null for creations. */
  id: string | null;
  action: ChangeAction;
  /** Why, in a few words: "not in the live state", "drift", "kind changed", "not declared (prune)", ... */
  reason: string;
  /** Only the fields that differ. `code` holds the full texts; renderers diff them. */
  fields: Record<string, FieldChange>;
}

export interface PolicyChange extends ChangeBase {
  resource: 'policy';
  declared: DeclaredPolicy | null;
  live: LivePolicy | null;
  /** Whether the apply must upload code (create, replace, or code drift). */
  uploadCode: boolean;
  /** Whether an update must rewrite the description to carry this source's ownership marker (adoption), even if it did not drift. */
  adoptMarker: boolean;
}

export interface PoolChange extends ChangeBase {
  resource: 'agent-pool';
  declared: DeclaredPool | null;
  live: LivePool | null;
}

export interface AgentChange extends ChangeBase {
  resource: 'agent';
  action: 'delete';
  /** The pool the agent belongs to. */
  poolName: string;
  live: Agent;
}

export type Change = PolicyChange | PoolChange | AgentChange;

export interface Plan {
  changes: Change[];
  warnings: string[];
  /** Refusals (guards) and problems that forbid any write for this source. */
  errors: string[];
}

export type PlanFunction = (declared: DeclaredState, live: LiveState, options: PlanOptions) => Plan;

/** What the renderers print for one source. */
export interface SourcePlan {
  name: string;
  organization: string;
  revision: string | null;
  plan: Plan;
}
