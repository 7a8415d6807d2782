import type { Agent, AgentPool, ManagedPolicy, Policy, PolicyApi, PolicySet } from '../api/types.js';
import type { DeclaredPolicy, DeclaredState } from '../declared/types.js';
import type { Logger } from '../logger.js';
import { hasIdShape } from '../api/ids.js';
import { isPolicyKind, type LiveAgent, type LivePolicy, type LivePolicySet, type LivePool, type LiveState } from '../model.js';
import type { CodeCache } from './code-cache.js';
import { mapLimit } from '../map-limit.js';
import { matchPools, matchPolicies } from '../plan/pairs.js';

/**
 * Policies whose code is being checked at once. The client paces and limits the requests itself; this bound keeps
 * the work waiting for it small, instead of one pending download per policy of the organization.
 */
const CODE_READS_AT_ONCE = 32;

/** Downloads up to this size keep their text while they are hashed, so a drifted small policy needs one request. */
const KEEP_TEXT_BYTES = 256 * 1024;

export interface ReadLiveOptions {
  api: PolicyApi;
  organization: string;
  declared: DeclaredState;
  logger: Logger;
  codeCache?: CodeCache;
  /** Prune is on: the sets are read (one list request) so that a set this source owns and no longer declares is deleted. */
  prune?: boolean;
  /** Called when the number of policies whose code must be checked is known (unless none is), then after each is checked. */
  onCodeProgress?: (done: number, total: number) => void;
  /**
   * The daemon's pool health: the pools are listed with the workspaces that use them and every pool's agents are read,
   * so that health needs no request of its own after a pass that changed no pool. @default only the agents of pools with agent clean-up
   */
  poolHealth?: boolean;
}

/**
 * Reads what the planner needs of the organization: every policy (all pages) with the code of each
 * declared one of the same kind, every pool, and the agents of pools that ask for agent clean-up.
 * Any failed request fails the whole read, so nothing is planned (and nothing pruned) from half a picture; it also
 * ends the other reads at once, those in flight and those waiting, so the pass ends with the first error.
 */
export async function readLive(given: ReadLiveOptions): Promise<LiveState> {
  const cancel = new AbortController();
  const options: ReadLiveOptions = { ...given, api: given.api.withSignal(cancel.signal) };
  const failFast = <T>(read: Promise<T>): Promise<T> =>
    read.catch((error: unknown) => {
      cancel.abort(error);
      throw error;
    });
  const { api, organization, declared } = options;
  // The files of each set content seen, so that a later plan against it can name the files that changed.
  for (const set of declared.policySets ?? []) if (set.content !== null) options.codeCache?.rememberSetFiles(set.content.digest, set.content.files);
  // Policy sets are read only by a source that declares one, names one by name, or prunes: the others never touch them.
  const readsSets = options.prune === true || (declared.policySets ?? []).length > 0 || declared.policies.some((p) => p.policySets?.some((entry) => !hasIdShape('policy-set', entry)) === true);
  const [listed, poolList, setList] = await Promise.all([
    failFast(api.listPolicies(organization)), failFast(api.listAgentPools(organization, options.poolHealth === true ? { includeWorkspaces: true } : {})),
    readsSets ? failFast(api.listPolicySets(organization, { include: ['current_version', 'newest_version'] })) : Promise.resolve(null),
  ]);
  // The list holds every policy of the organization: the cache forgets the ones deleted since.
  options.codeCache?.retain(listed.map((policy) => policy.id));
  // A kind this tool does not know is set aside whole: never compared, updated, replaced or deleted.
  const policies = listed.filter((policy): policy is ManagedPolicy => isPolicyKind(policy.kind));
  const foreignPolicies = listed.flatMap((p) => (isPolicyKind(p.kind) ? [] : [{ id: p.id, name: p.name, kind: p.kind }]));
  // Each live resource is read against the declaration the planner will pair it with (plan/pairs.ts).
  const declaredOf = new Map(matchPolicies(declared.policies, policies).flatMap((m) => (m.live === null || m.declared === null ? [] : [[m.live, m.declared] as const])));
  const poolMatches = matchPools(declared.pools, poolList.pools).matches;
  const cleanedUp = new Set(poolMatches.flatMap((m) => (m.live !== null && m.declared?.agentCleanup != null ? [m.live] : [])));
  // Tokens are read only for the pools that declare them: one list per such pool, the no-op's whole cost for them.
  const withTokens = new Set(poolMatches.flatMap((m) => (m.live !== null && m.declared?.tokens != null ? [m.live] : [])));
  const readsAgents = (pool: AgentPool) => options.poolHealth === true || cleanedUp.has(pool);
  const total = policies.filter((p) => needsCode(p, declaredOf.get(p))).length;
  let done = 0;
  if (total > 0) options.onCodeProgress?.(done, total);
  const counted = async (listed: ManagedPolicy): Promise<LivePolicy> => {
    const policy = await withSets(listed, declaredOf.get(listed), api);
    const result = await withCode(policy, declaredOf.get(listed), options);
    if (needsCode(policy, declaredOf.get(policy))) options.onCodeProgress?.((done += 1), total);
    return result;
  };
  // The few agent lists first: they do not wait behind the downloads.
  const pools = failFast(Promise.all(poolList.pools.map(async (pool): Promise<LivePool> => {
    const [agents, tokens] = await Promise.all([readsAgents(pool) ? api.listAgents(pool.id) : [], withTokens.has(pool) ? api.listAgentTokens(pool.id) : null]);
    return { ...livePool(pool, agents), ...(tokens === null ? {} : { tokens: tokens.map(({ id, description, createdAt, lastUsedAt }) => ({ id, description, createdAt, lastUsedAt })) }) };
  })));
  const [livePools, livePolicies] = await Promise.all([pools, failFast(mapLimit(policies, CODE_READS_AT_ONCE, counted))]);
  const withParameters = new Set((declared.policySets ?? []).filter((set) => set.parameters !== null).map((set) => set.name));
  const readSet = async (set: PolicySet): Promise<LivePolicySet> => ({
    ...livePolicySet(set),
    parameters: withParameters.has(set.name) ? (await api.listPolicySetParameters(set.id)).map(({ id, key, value, sensitive }) => ({ id, key, value, sensitive })) : null,
  });
  const known = setList?.filter((set) => set.foreignKind === null) ?? null;
  const policySets = known === null ? {} : { policySets: await failFast(Promise.all(known.map(readSet))) };
  const scope = await failFast(readScopeNames(api, organization, declared));
  return { policies: livePolicies, pools: livePools, ...policySets, ...scope, ...(foreignPolicies.length > 0 ? { foreignPolicies } : {}) };
}

/**
 * A policy whose settings name its sets, listed without them (`policy-set-count` says more than the list names), is
 * read again with `include=policy_sets`, so that its membership can be compared.
 */
async function withSets(policy: ManagedPolicy, declared: DeclaredPolicy | undefined, api: PolicyApi): Promise<ManagedPolicy> {
  if (declared?.policySets == null || policy.policySetCount <= policy.policySetIds.length) return policy;
  const read = await api.getPolicy(policy.id, { includePolicySets: true });
  return { ...policy, policySetIds: read.policySetIds, policySetCount: Math.max(policy.policySetCount, read.policySetCount) };
}

/** Code is compared only for a declared policy of the same kind that has code; anything else is created, replaced or pruned whole. */
function needsCode(policy: Policy, declared: DeclaredPolicy | undefined): declared is DeclaredPolicy {
  return declared !== undefined && declared.kind === policy.kind && policy.updatedAt !== null;
}

async function withCode(policy: ManagedPolicy, declared: DeclaredPolicy | undefined, options: ReadLiveOptions): Promise<LivePolicy> {
  if (!needsCode(policy, declared) || policy.updatedAt === null) return livePolicy(policy, null, null);
  const cached = options.codeCache?.get(policy.id, policy.updatedAt);
  if (cached !== undefined && cached === declared.codeDigest) return livePolicy(policy, null, cached);
  // Hashed as it streams: equal code is never held. null: the service says this policy has no code (404), so the planner plans an upload.
  const streamed = await options.api.downloadPolicyDigest(policy, KEEP_TEXT_BYTES);
  if (streamed === null) return livePolicy(policy, null, null);
  options.codeCache?.set(policy.id, policy.updatedAt, streamed.digest);
  if (streamed.digest === declared.codeDigest) return livePolicy(policy, null, streamed.digest);
  // The plan shows this code's diff: code too large to keep while it streamed is downloaded again.
  return livePolicy(policy, streamed.text ?? (await options.api.downloadPolicy(policy)), streamed.digest);
}

function livePolicy(policy: ManagedPolicy, code: string | null, digest: string | null): LivePolicy {
  const { id, name, kind, description, query, enforcementLevel, policySetIds, policySetCount, updatedAt } = policy;
  return { id, name, kind, description, query, enforcementLevel, policySetIds, policySetCount, updatedAt, code, codeDigest: digest };
}

function livePool(pool: AgentPool, agents: Agent[]): LivePool {
  const { id, name, organizationScoped, agentCount, allowedWorkspaceIds, allowedProjectIds, excludedWorkspaceIds, workspaceIds } = pool;
  return { id, name, organizationScoped, agentCount, allowedWorkspaceIds, allowedProjectIds, excludedWorkspaceIds, workspaceIds, agents: agents.map(liveAgent) };
}

function liveAgent(agent: Agent): LiveAgent {
  const { id, name, status, lastPingAt, createdAt } = agent;
  return { id, name, status, lastPingAt, createdAt };
}


function livePolicySet(set: PolicySet): Omit<LivePolicySet, 'parameters'> {
  const newest = set.newestVersion;
  return {
    id: set.id, name: set.name, kind: set.kind, description: set.description, global: set.global, overridable: set.overridable,
    agentEnabled: set.agentEnabled, policyToolVersion: set.policyToolVersion, versioned: set.versioned, vcsBacked: set.vcsBacked,
    workspaceIds: [...set.workspaceIds], projectIds: [...set.projectIds],
    workspaceExclusionIds: [...set.workspaceExclusionIds], projectExclusionIds: [...set.projectExclusionIds],
    tagSelectors: set.tagSelectors.map((s) => ({ ...s })), scopingType: set.scopingType, tagMatch: set.tagMatch,
    currentVersionId: set.currentVersionId,
    newestVersion: set.newestVersionId === null ? null
      : { id: set.newestVersionId, status: newest?.status ?? 'unknown', errorMessage: newest?.errorMessage ?? null },
  };
}

/**
 * Workspaces and projects, listed when a set's scope or a pool's access list names any: an entry is a name before it
 * is an id (a workspace may be named `ws-staging`), and an id is checked to exist, so both need the list.
 */
async function readScopeNames(api: PolicyApi, organization: string, declared: DeclaredState): Promise<Pick<LiveState, 'workspaces' | 'projects'>> {
  const scopes = (declared.policySets ?? []).map((set) => set.scope);
  const named = (lists: Array<string[] | null | undefined>) => lists.some((list) => list != null && list.length > 0);
  const pools = declared.pools;
  const wantsWorkspaces = named([...scopes.flatMap((s) => [s.workspaces, s.workspaceExclusions]), ...pools.flatMap((p) => [p.allowedWorkspaces, p.excludedWorkspaces])]);
  const wantsProjects = named([...scopes.flatMap((s) => [s.projects, s.projectExclusions]), ...pools.map((p) => p.allowedProjects)]);
  // A set scoped by tags: the plan names the workspaces its selectors match today, so the list carries their tags.
  const wantsTags = (declared.policySets ?? []).some((set) => (set.tags?.selectors.length ?? 0) > 0);
  const [workspaces, projects] = await Promise.all([
    wantsWorkspaces || wantsTags ? api.listWorkspaces(organization, wantsTags ? { tags: true } : {}) : Promise.resolve(null),
    wantsProjects ? api.listProjects(organization) : Promise.resolve(null),
  ]);
  return {
    ...(workspaces === null ? {} : { workspaces: workspaces.map((w) => ({ id: w.id, name: w.name, ...(w.tags === undefined ? {} : { tags: w.tags }) })) }),
    ...(projects === null ? {} : { projects: projects.map((p) => ({ id: p.id, name: p.name })) }),
  };
}
