import type { Ownership } from '../model.js';
import type { ChangeEvidence, RolloutStatus } from './evidence.js';
import type { LiveAgentRef, LivePolicyRef, LivePolicySetRef, LivePoolRef, LiveTokenRef, PolicySetSpec, PolicySpec, PoolSpec, TokenSpec } from './refs.js';

export type ResourceType = 'policy' | 'policy-set' | 'agent-pool' | 'agent' | 'agent-token';
export type ChangeAction = 'create' | 'update' | 'replace' | 'delete';

export interface PlanOptions {
  /** Source name; written into the ownership marker. */
  source: string;
  ownership: Ownership;
  prune: boolean;
  allowEmpty: boolean;
  maxDeletes: number;
  force: boolean;
  /**
   * Take over policies that carry another source's ownership marker (`--adopt`, `adopt: true`). Without it they
   * are conflicts: never updated, replaced or deleted. @default false
   */
  adopt?: boolean;
  /** Current time in ms since the epoch (agent clean-up ages). */
  now: number;
  /**
   * The files of a set content, by the digest a live set's marker records, when this run has seen that content
   * before (the code cache in the state dir keeps them): a changed content then names its changed files.
   */
  setFiles?: (digest: string) => ReadonlyArray<{ path: string; sha256: string }> | undefined;
}

import type { CodeSummary } from '../code-content.js';

export type { CodeSummary };

/**
 * A field's value in a plan: a setting as it is (text, a number, a flag, a set of ids as a sorted list), null for
 * none, and code either as its text (where the plan shows its diff) or as its CodeSummary (digest, bytes, lines).
 */
export type FieldValue = string | number | boolean | readonly string[] | CodeSummary | null;

export interface FieldChange {
  before: FieldValue;
  after: FieldValue;
}

/**
 * A change is plain data (it serialises whole): the JSON plan's `resource, name, id, action, reason, fields`, plus
 * what the apply needs of the declaration and of the live resource it was planned against (refs.ts), whose values
 * are also what the check of a saved plan compares (saved.ts). A fresh plan and a checked saved plan hold these same
 * changes, applied by one `applyPlan` and rendered by one set of renderers.
 */
interface ChangeBase {
  name: string;
  /** null for creations. */
  id: string | null;
  action: ChangeAction;
  /**
   * Why, in a few words. Creates: "not in the live state". Replaces: "kind changed". Updates: "differs in <fields>"
   * (comma-separated), for pools "renamed" and/or "differs in" joined by "; ", for policies "adopt: add ownership
   * marker" optionally followed by "; differs in <fields>" (the daemon says "drift in" when the repo did not change,
   * see plan/reasons.ts). Deletes: "not declared, prune is on". Agent clean-ups:
   * `agent clean-up in pool "<pool>": <status>, last ping <time> is older than <after>`, or for an agent that never
   * pinged `..., never pinged, registered <time>, older than <after>`.
   */
  reason: string;
  /**
   * Only the fields that differ. `code` holds the full texts where the plan shows a diff (live code drifted);
   * elsewhere (creates, replaces) the declared side is a CodeSummary, so big code is not held for the plan.
   */
  fields: Record<string, FieldChange>;
  /**
   * A change that tightens enforcement (plan/tightening.ts): what the runs of the workspaces in scope say of the
   * policies it tightens. Words for a person, like `reason`: a saved plan is not compared on them.
   */
  evidence?: ChangeEvidence;
}

export interface PolicyChange extends ChangeBase {
  resource: 'policy';
  /** The declaration applied, with its code's reference; null for deletions. */
  declared: PolicySpec | null;
  /** The live policy planned against; null for creations. */
  live: LivePolicyRef | null;
  /** Whether the apply must upload code (create, replace, or code drift). */
  uploadCode: boolean;
  /** Whether an update must rewrite the description to carry this source's ownership marker (adoption), even if it did not drift. */
  adoptMarker: boolean;
}

/** A wildcard of a scope or access list as the repo wrote it, and the names it matched when the plan was made (sorted). */
export interface WildcardMatch {
  /** The field it is in: `workspaces`, `allowed-projects`, … */
  field: string;
  pattern: string;
  matched: string[];
}

/**
 * A set's scope or a pool's access lists as a person reads them: the name of each workspace and project id its
 * fields hold (where the organization's lists were read), and what each wildcard of the shown fields matched. Words
 * for a person, like `reason`: a saved plan is not compared on them.
 */
export interface ScopeNames {
  names: Record<string, string>;
  wildcards: WildcardMatch[];
}

export interface PoolChange extends ChangeBase {
  resource: 'agent-pool';
  /** The names of the ids of its access lists, and what their wildcards matched; absent when there is nothing to name. */
  scope?: ScopeNames;
  /** The declaration applied; null for deletions. */
  declared: PoolSpec | null;
  /** The live pool planned against; null for creations. */
  live: LivePoolRef | null;
}

export interface AgentChange extends ChangeBase {
  resource: 'agent';
  action: 'delete';
  /** The pool the agent belongs to. */
  poolName: string;
  live: LiveAgentRef;
}

/**
 * An agent pool's token made (its text delivered by the apply to the token folder the operator allows, never held
 * by the plan) or deleted. Its name is `<pool>/<description>`.
 */
export interface TokenChange extends ChangeBase {
  resource: 'agent-token';
  action: 'create' | 'delete';
  poolName: string;
  /** What a create makes: the description, and the file in the token folder its text goes to; null for a deletion. */
  declared: TokenSpec | null;
  /** The pool (its id: null when this plan creates it), the tokens of the description when planned, and the token a deletion deletes. */
  live: LiveTokenRef;
}

/** A live token of a pool that declares tokens, as the plan shows it (never its text). */
export interface TokenStatus {
  pool: string;
  description: string;
  id: string;
  /** How old it is when the plan was made (`31d`); null when its creation time is unknown. */
  age: string | null;
  lastUsedAt: string | null;
  /** Where its rotation stands, or that it is not declared; null when there is nothing to say. */
  note: string | null;
}

export interface PolicySetChange extends ChangeBase {
  resource: 'policy-set';
  /** The declaration applied, with where its content is; null for deletions. */
  declared: PolicySetSpec | null;
  /** The live set planned against; null for creations. */
  live: LivePolicySetRef | null;
  /** Whether the apply must upload a new version of the content (a create, or content the marker does not record). */
  uploadContent: boolean;
  /** Whether an update must rewrite the description to carry this source's ownership marker (adoption), even if it did not drift. */
  adoptMarker: boolean;
  /**
   * A content update whose content before this run has seen: the files added, changed and removed (paths in the set's
   * folder, sorted). Words for a person, like `reason`: a saved plan is not compared on them.
   */
  contentFiles?: ContentFiles;
  /** The names of the ids of its scope, and what its wildcards matched; absent when there is nothing to name. */
  scope?: ScopeNames;
}

/** The files that differ between a set's content before and after. */
export interface ContentFiles {
  added: string[];
  changed: string[];
  removed: string[];
}

export type Change = PolicyChange | PolicySetChange | PoolChange | AgentChange | TokenChange;

export interface Plan {
  changes: Change[];
  warnings: string[];
  /** Refusals (guards) and problems that forbid any write for this source. */
  errors: string[];
  /**
   * Live policies and agent pools of the organization that are not declared and that the plan leaves in place
   * (prune is off, or another source owns them). Absent means unknown; the renderers then claim nothing about them.
   */
  keptUndeclared?: number;
  /** Where each rollout under way stands (plan/rollout.ts); absent or empty: none. */
  rollouts?: RolloutStatus[];
  /** The live tokens of the pools that declare tokens, with their age and last use (plan/tokens.ts); absent or empty: none. */
  tokens?: TokenStatus[];
}

/** What became of a planned change when the plan was applied. */
export type ChangeOutcome = 'applied' | 'failed' | 'skipped';

/** The message of a change that was never started because the run was stopped. */
export const NOT_STARTED = 'not applied: the run was stopped before this change started';

/** The result of one planned change. */
export interface ChangeResult {
  change: Change;
  outcome: ChangeOutcome;
  /** Why it failed or was skipped. */
  message: string | null;
}

interface SourceHeader {
  name: string;
  organization: string;
  /** The git commit, or null for a local folder. */
  revision: string | null;
}

/** A source whose plan was made (it may be empty: the API matches the repo). */
export interface PlannedSource extends SourceHeader {
  plan: Plan;
}

/** A source whose pass stopped before planning: nothing is known about its drift. */
export interface UnplannedSource extends SourceHeader {
  plan: null;
  /** What could not be read: the declared repo (it is invalid) or the live state. */
  unreadable: 'declared' | 'live';
  errors: string[];
}

/** What the renderers print for one source: its plan, or why there is none. */
export type SourcePlan = PlannedSource | UnplannedSource;
