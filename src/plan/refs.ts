/**
 * What a change carries of the declaration and the live resource it was planned from: plain data (what the apply
 * writes, what it acts on, what the check of a saved plan compares), copied here once from the pairs, never the objects
 * themselves. A change can be serialised whole, and holds no code text but the one its diff shows. Pure.
 */
import type { CodeSummary } from '../code-content.js';
import type { CodeSource, DeclaredPolicy, DeclaredPolicySet, DeclaredPool, SetRolloutRecord } from '../declared/types.js';
import type { LiveAgent, LivePolicy, LivePolicySet, LivePool, LiveToken, RolloutRecord } from '../model.js';

/** A policy's code: what it is (the digest it is compared by, its size and lines), and where its bytes are. */
export interface CodeRef extends CodeSummary {
  /** The code file, relative to the source root, with `/` separators. */
  file: string;
  /** Where the bytes are (the source root and the file's path through it) and the digest of those exact bytes. */
  source: CodeSource;
}

/** A declared policy as a change applies it; the name is the change's, the file its code's. */
export interface PolicySpec extends Pick<DeclaredPolicy, 'kind' | 'description' | 'enforcementLevel' | 'query' | 'policySets'> {
  code: CodeRef;
  /** What the policy's marker records of its rollout (plan/rollout.ts); absent: it has none. */
  rollout?: RolloutRecord;
}

/** A live policy as a change was planned against it: every field compared, with its code's digest, not its text. */
export type LivePolicyRef = Omit<LivePolicy, 'code'>;

/** A declared pool as a change applies it; the name is the change's. A list that is not managed is null. */
export interface PoolSpec extends Omit<DeclaredPool, 'name' | 'allowedProjects' | 'excludedWorkspaces' | 'lines' | 'tokens'> {
  allowedProjects: string[] | null;
  excludedWorkspaces: string[] | null;
}

/** A live pool as a change was planned against it. */
export type LivePoolRef = Pick<LivePool, 'id' | 'name' | 'organizationScoped' | 'allowedWorkspaceIds' | 'allowedProjectIds' | 'excludedWorkspaceIds'>;

/** A live agent as its clean-up was planned against it. */
export type LiveAgentRef = Pick<LiveAgent, 'id' | 'status' | 'lastPingAt'>;

export function policySpec(policy: DeclaredPolicy): PolicySpec {
  const { file, kind, description, enforcementLevel, query, policySets, codeSource, codeDigest, codeLines } = policy;
  const code = { sha256: codeDigest, bytes: codeSource.size, lines: codeLines, file, source: { ...codeSource } };
  const rollout = policy.rolloutRecord ?? null;
  return { kind, description, enforcementLevel, query, policySets: policySets === null ? null : [...policySets], code, ...(rollout === null ? {} : { rollout: { ...rollout } }) };
}

export function livePolicyRef(policy: LivePolicy): LivePolicyRef {
  const { code: _text, policySetIds, ...rest } = policy;
  return { ...rest, policySetIds: [...policySetIds] };
}

export function poolSpec(pool: DeclaredPool): PoolSpec {
  const copy = (ids: string[] | null | undefined) => (ids === null || ids === undefined ? null : [...ids]);
  const { file, organizationScoped, allowedWorkspaces, allowedProjects, excludedWorkspaces, previousNames, agentCleanup } = pool;
  return {
    file, organizationScoped, allowedWorkspaces: copy(allowedWorkspaces), allowedProjects: copy(allowedProjects),
    excludedWorkspaces: copy(excludedWorkspaces), previousNames: [...previousNames],
    agentCleanup: agentCleanup === null ? null : { ...agentCleanup, statuses: [...agentCleanup.statuses] },
  };
}

export function livePoolRef(pool: LivePool): LivePoolRef {
  const { id, name, organizationScoped, allowedWorkspaceIds, allowedProjectIds, excludedWorkspaceIds } = pool;
  return {
    id, name, organizationScoped, allowedWorkspaceIds: [...allowedWorkspaceIds], allowedProjectIds: [...allowedProjectIds],
    excludedWorkspaceIds: [...excludedWorkspaceIds],
  };
}

/** A token a create makes: its description, and the file (relative to the token folder) or the Secret's key its text goes to. */
export interface TokenSpec {
  description: string;
  /** null when it goes to a Secret. */
  file: string | null;
  /** null when it goes to a file. */
  secret: { name: string; key: string } | null;
}

/** The live side of a token change: the pool's id (null: created by the same plan), the ids of the tokens of that description, and the token deleted. */
export interface LiveTokenRef {
  poolId: string | null;
  tokenIds: string[];
  token: LiveToken | null;
}

export function liveAgentRef(agent: LiveAgent): LiveAgentRef {
  return { id: agent.id, status: agent.status, lastPingAt: agent.lastPingAt };
}

/** A declared policy set as a change applies it; the name is the change's. Its content says where the folder is and its digest. */
export interface PolicySetSpec extends Omit<DeclaredPolicySet, 'name' | 'lines' | 'members' | 'rollout' | 'rolloutRecord'> {
  /** What a versioned set's marker records of its rollout (plan/set-rollout.ts); absent: it has none. */
  rollout?: SetRolloutRecord;
}

/** A live policy set as a change was planned against it. */
export type LivePolicySetRef = LivePolicySet;

export function policySetSpec(set: DeclaredPolicySet): PolicySetSpec {
  const { name: _name, lines: _lines, members: _members, rollout: _rollout, rolloutRecord, content, scope, parameters, ...rest } = set;
  const copy = (ids: string[] | null) => (ids === null ? null : [...ids]);
  return {
    ...rest,
    scope: { workspaces: copy(scope.workspaces), projects: copy(scope.projects), workspaceExclusions: copy(scope.workspaceExclusions), projectExclusions: copy(scope.projectExclusions) },
    // A sensitive value never goes into a change: the apply reads it again from where it came from.
    parameters: parameters === null ? null : parameters.map((p) => ({ ...p, value: p.sensitive ? null : p.value })),
    content: content === null ? null : { ...content, files: content.files.map((f) => ({ ...f })), ...(content.held === undefined ? {} : { held: content.held.map((h) => ({ ...h })) }) },
    ...(rolloutRecord == null ? {} : { rollout: { ...rolloutRecord } }),
  };
}

export function livePolicySetRef(set: LivePolicySet): LivePolicySetRef {
  return {
    ...set, workspaceIds: [...set.workspaceIds], projectIds: [...set.projectIds], workspaceExclusionIds: [...set.workspaceExclusionIds],
    projectExclusionIds: [...set.projectExclusionIds], newestVersion: set.newestVersion === null ? null : { ...set.newestVersion },
    parameters: set.parameters === null ? null : set.parameters.map((p) => ({ ...p })),
  };
}
