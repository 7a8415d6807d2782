import type { ParameterAllowance } from '../config/types.js';
import type { AgentStatus, EnforcementLevel, PolicyKind, RolloutRecord, RolloutSpec, TagMatch, TagSelector } from '../model.js';
import type { DeclaredCache } from './declared-cache.js';
import type { WalkLimits } from './walk.js';

/** Where a policy's code was read from, and a digest of the exact bytes that were read and validated. */
export interface CodeSource {
  /** Real path of the source root: the code must still resolve under it when it is read again. */
  root: string;
  /** Path of the code file through the source root as given. */
  path: string;
  /** Size in bytes. */
  size: number;
  /** sha256 (hex) of the file's exact bytes (what the upload checks it still sends), not the digest the plan compares. */
  fileSha256: string;
}

/** A policy as the declared repo states it. */
/** Lines in a settings file of its lists (`allowed-workspaces`) and their entries (`allowed-workspaces.0`): `listLines`. */
export type EntryLines = Readonly<Record<string, number>>;

export interface DeclaredPolicy {
  name: string;
  kind: PolicyKind;
  /** Code file, relative to the source root, with `/` separators. */
  file: string;
  /** Settings file relative to the source root, or null when there is none. */
  settingsFile: string | null;
  /** The upload sends exactly these bytes, read again and checked against the digest, or nothing. */
  codeSource: CodeSource;
  /** Digest of the code as the planner compares it (`codeDigest`: byte order mark dropped, line ends normalised). */
  codeDigest: string;
  /** The code exactly as in the file; kept only for policies whose code diff a plan shows (`withCodeTexts`), else null. */
  code: string | null;
  /** Lines of `policy-sets` and its entries in the settings file. */
  lines?: EntryLines;
  /** Lines of the code (line ends of any kind; a last line without one counts), for plans that describe it. */
  codeLines: number;
  /** Without any ownership marker; null when absent. */
  description: string | null;
  enforcementLevel: EnforcementLevel;
  /** opa only; null for native. */
  query: string | null;
  /** null when the settings do not name any (not managed). */
  policySets: string[] | null;
  /** The declared rollout (`rollout:`); absent or null: none, the level applies at once. */
  rollout?: RolloutSpec | null;
  /** The settings file that gives `enforcementLevel` and `rollout`: its own, or a YAML set's (policy-settings.ts). */
  levelFrom?: string;
  /**
   * Set by the rollout stage (plan/rollout.ts) before pairing: the record the policy's marker must hold; its
   * `enforcementLevel` is then the level the rollout applies now. Absent or null: no rollout.
   */
  rolloutRecord?: RolloutRecord | null;
}

export interface AgentCleanup {
  statuses: AgentStatus[];
  /** Agents whose last ping (or registration, if they never pinged) is older than this many milliseconds are deleted. */
  afterMs: number;
  /** As written, e.g. `1h`, for display. */
  after: string;
}

/** Where a token's text goes: a file in the token folder, or a key of a Kubernetes Secret in the daemon's namespace. */
export type TokenDelivery = { file: string } | { secret: string; key: string };

/** A token a pool file declares: its description is its identity within the pool. */
export interface DeclaredToken {
  description: string;
  /**
   * Where its text is delivered: a file relative to the token folder the operator allows, or a key of a Secret the
   * operator allows by name; null: kept when it exists, never made.
   */
  deliverTo: TokenDelivery | null;
  /** As written (`30d`), and in milliseconds; null: never rotated. */
  rotateAfter: string | null;
  rotateAfterMs: number | null;
  /** How long an unused successor waits before its predecessor is deleted anyway; null: until the successor is used. */
  overlap: string | null;
  overlapMs: number | null;
}

export interface DeclaredPool {
  name: string;
  file: string;
  organizationScoped: boolean;
  /** null: not managed. */
  allowedWorkspaces: string[] | null;
  /** `prj-` ids; null: not managed. */
  allowedProjects?: string[] | null;
  /** `ws-` ids; null: not managed. */
  excludedWorkspaces?: string[] | null;
  previousNames: string[];
  agentCleanup: AgentCleanup | null;
  /** The pool's tokens, managed exactly; null or absent: the pool's tokens are left alone. */
  tokens?: DeclaredToken[] | null;
  /** Lines of the access lists and their entries in `file`. */
  lines?: EntryLines;
}

/** A versioned set's content: its folder packed as a deterministic tar.gz (policy-set-archive.ts). */
export interface SetContent {
  /** The set's folder, relative to the source root. */
  folder: string;
  /** Real path of the source root: the folder must still resolve under it when it is packed again for the upload. */
  root: string;
  /** The config file, relative to the folder. */
  configFile: string;
  /** sha256 (hex) of the set's content, line ends normalised (policy-set-archive.ts): what the set's ownership marker records. */
  digest: string;
  /** Size of the tar.gz in bytes. */
  bytes: number;
  /** Every file packed, relative to the folder, with its sha256: what a plan names when the content changes. */
  files: Array<{ path: string; sha256: string; size: number }>;
  /** The policies and modules the config file declares. */
  policies: number;
  modules: number;
  /** Each policy the config file declares with its level (`enforcement_level`, advisory when absent); absent in plans saved before. */
  levels?: Array<{ name: string; level: string }>;
  /**
   * The levels the uploaded version holds back while the set's rollout holds them (plan/set-rollout.ts): each such
   * policy's name and the start level the upload gives it in place of its declared one, sorted by name. Absent or
   * empty: the upload is the folder as declared. The digest and files above are always the folder's as declared.
   */
  held?: Array<{ name: string; level: EnforcementLevel }>;
}

/** A policy set parameter. A sensitive one's value comes from an environment variable or a file outside the repo. */
export interface SetParameter {
  key: string;
  /** The value to send; for a sensitive one, held in memory only and never in a plan (policySetSpec drops it). */
  value: string | null;
  sensitive: boolean;
  /** Where a sensitive value is read from: `env:NAME` or `file:PATH` (as the repo names it); null for a plain value. */
  from: string | null;
}

/** A set's workspaces and projects, and those excluded; null: not managed. */
export interface SetScope {
  workspaces: string[] | null;
  projects: string[] | null;
  workspaceExclusions: string[] | null;
  projectExclusions: string[] | null;
}

/** A set's `tags:`: its tag selectors, inclusions and exclusions, and how the inclusions combine. */
export interface SetTags {
  selectors: TagSelector[];
  match: TagMatch;
}

/** A policy set as the declared repo states it: a folder with a config file (versioned), or a YAML file. */
export interface DeclaredPolicySet {
  name: string;
  kind: PolicyKind;
  /** The settings file (policy-set.yaml beside the config file, or policy-sets/<name>.yaml); null when none. */
  settingsFile: string | null;
  description: string | null;
  global: boolean;
  /** null: the service's default (not managed). */
  overridable: boolean | null;
  agentEnabled: boolean | null;
  policyToolVersion: string | null;
  /** Where it is enforced, as written: names (`*` as prefix, suffix or both) or ids; a list that is null is not managed. */
  scope: SetScope;
  /** The workspaces it is enforced on by their tags (`tags:`), sent as tag selectors; null or absent: not managed. */
  tags?: SetTags | null;
  /** Managed exactly when present (others are deleted); null: not managed. Native sets only. */
  parameters: SetParameter[] | null;
  /**
   * A digest of the sensitive parameters' keys and values, keyed with the API token (HMAC-SHA256), which the set's
   * marker records: a changed sensitive value is noticed without being kept anywhere. null: none, or not yet computed.
   */
  sensitiveDigest: string | null;
  /** Versioned sets only; null for a set declared in YAML, whose members are the policies that name it. */
  content: SetContent | null;
  /** Lines of the scope lists and their entries in the settings file. */
  lines?: EntryLines;
  /**
   * A YAML set's `enforcement-level` and `rollout:`, which its members that declare neither take
   * (member-enforcement.ts); absent or null: it declares neither. Never part of the set's own spec.
   */
  members?: MemberEnforcement | null;
  /** A versioned set's `rollout:` (policy-set.yaml) for the policies its config file raises; absent or null: none. */
  rollout?: RolloutSpec | null;
  /** What the set's marker must record of its rollout (plan/set-rollout.ts); absent: it has none. */
  rolloutRecord?: SetRolloutRecord | null;
}

/**
 * A versioned set's rollout as its marker records it: which rollout (its block and the folder's digest), when it
 * began, held or promoted, and the levels its uploaded version gives the policies it puts at a level that blocks
 * (plan/set-rollout.ts `levelMarks`: 8 hex digits a policy, sorted; null: none), from which every runner knows which
 * are held and which level the service enforces for each.
 */
export interface SetRolloutRecord extends RolloutRecord {
  enforced: string | null;
}

/** The level (and rollout) a YAML set gives its members. */
export interface MemberEnforcement {
  enforcementLevel: EnforcementLevel;
  rollout: RolloutSpec | null;
}

export interface DeclaredState {
  policies: DeclaredPolicy[];
  pools: DeclaredPool[];
  /** Policy sets; absent reads as none (states made before sets were declared). */
  policySets?: DeclaredPolicySet[];
  /**
   * Files that are read but look wrong (empty code), or look declared but are not read; the plan shows them among its
   * warnings. `readDeclared` always sets it.
   */
  warnings?: string[];
}

export interface ReadOptions {
  /** The most agent pools the repo may declare (the tool's own guard, `max-agent-pools`); default 1. */
  maxAgentPools?: number;
  /** Stops the read between files. */
  signal?: AbortSignal;
  /** Files whose size, times and inode did not change since the last read are not parsed again (the daemon keeps one per source). */
  cache?: DeclaredCache;
  limits?: WalkLimits;
  /** Imports that will fail on the service (a Sentinel module, a Rego package no declared file provides) are errors, not warnings. @default false */
  strictImports?: boolean;
  /** Where a sensitive parameter's `{env: NAME}` is read: the environment the CLI or daemon was given. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** What a sensitive parameter may read: the operator's allowance (the source's `parameters`). @default nothing */
  parameters?: ParameterAllowance;
  /** The folder agent tokens are delivered to (`--token-dir`, `tokens.dir`): a `deliver-to` must lead inside it. @default none */
  tokenDir?: string | null;
  /** The Secrets a `deliver-to: {secret}` may name (`tokens.secrets`). @default none */
  tokenSecrets?: readonly string[];
  /** Sensitive parameters are only checked against `parameters`, not read (`--validate`). @default false */
  parametersAllowedOnly?: boolean;
  /**
   * The API's keyed digest (HMAC with its token, `PolicyApi.keyedDigest`): each policy set with sensitive parameters
   * gets the digest of their keys and values, which its marker records. Without it none is made, and they are sent
   * each pass.
   */
  keyedDigest?: (text: string) => string;
}
