/** Control endpoints under /_emulator for tests and demos: faults, request log, agents, rate limit, behaviour, state. */
import { selectorText, type NativeKindName } from '../model.js';
import { kindWord } from './records.js';
import { agentResource } from './documents.js';
import type { FaultList } from './faults.js';
import { badRequest, isObject, readBody, type Reply } from './http.js';
import { requireAgent, requirePool } from './lookups.js';
import type { RateLimiter } from './rate-limit.js';
import type { RequestLog } from './request-log.js';
import type { Context, Route } from './router.js';
import { readAgentFields, readBehaviourChanges, readFaultList } from './control-input.js';
import { fromBehaviour } from './seed.js';
import { settleDue } from './ingestion.js';
import type { Behaviour, RateLimitWindow } from './types.js';
import { setPolicyIds } from './policy-set-documents.js';
import { addAgent, agentsOf, policiesOf, poolsOf, tokensOf, type PolicySetRecord, type Store } from './store.js';
import { addTableRun, moveRun } from './control-runs.js';
import { updateToken } from './control-tokens.js';

export interface ControlDeps {
  faults: FaultList;
  log: RequestLog;
  limiter: RateLimiter;
  runListLimiter: RateLimiter;
  /** Changed in place. */
  behaviour: Behaviour;
}

export function controlRoutes(deps: ControlDeps): Route[] {
  return [
    { method: 'POST', pattern: '/faults', handler: async (ctx) => ok({ added: addFaults(deps.faults, await readJson(ctx)) }) },
    { method: 'GET', pattern: '/faults', handler: () => ok({ faults: deps.faults.list() }) },
    { method: 'DELETE', pattern: '/faults', handler: () => (deps.faults.clear(), ok({})) },
    { method: 'GET', pattern: '/requests', handler: () => ok({ requests: deps.log.list() }) },
    { method: 'DELETE', pattern: '/requests', handler: () => (deps.log.clear(), ok({})) },
    { method: 'POST', pattern: '/agents', handler: addAgents },
    { method: 'PATCH', pattern: '/agents/:id', handler: updateAgent },
    { method: 'PATCH', pattern: '/authentication-tokens/:id', handler: async (ctx) => ok(updateToken(ctx, await readJson(ctx))) },
    { method: 'PUT', pattern: '/rate-limit', handler: async (ctx) => ok(setRateLimit(deps.limiter, await readJson(ctx))) },
    { method: 'PUT', pattern: '/run-list-rate-limit', handler: async (ctx) => ok(setRateLimit(deps.runListLimiter, await readJson(ctx))) },
    { method: 'GET', pattern: '/behaviour', handler: () => ok(fromBehaviour(deps.behaviour)) },
    { method: 'PUT', pattern: '/behaviour', handler: async (ctx) => ok(fromBehaviour(Object.assign(deps.behaviour, readBehaviourChanges(await readJson(ctx))))) },
    { method: 'GET', pattern: '/state', handler: (ctx) => (settleDue(ctx.store, ctx.now()), ok(dumpState(ctx.store, ctx.behaviour.nativeKind))) },
    { method: 'POST', pattern: '/runs', handler: async (ctx) => ok(addTableRun(ctx, await readJson(ctx))) },
    { method: 'PATCH', pattern: '/runs/:id', handler: async (ctx) => ok(moveRun(ctx, await readJson(ctx))) },
  ];
}

function ok(body: unknown): Reply {
  return { status: 200, headers: { 'content-type': 'application/json' }, body };
}

async function readJson(ctx: Context): Promise<unknown> {
  const raw = await readBody(ctx.req, 1_048_576);
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch {
    throw badRequest('body is not valid JSON');
  }
}

function addFaults(faults: FaultList, body: unknown): number {
  const specs = readFaultList(body);
  faults.add(specs);
  return specs.length;
}

/** `{"limit": N, "window": "sliding" | "fixed"}`, either or both; answers both as they now are. */
function setRateLimit(limiter: RateLimiter, body: unknown): { limit: number; window: RateLimitWindow } {
  if (!isObject(body) || (body.limit === undefined && body.window === undefined)) throw badRequest('body must be {"limit": N, "window": "sliding" | "fixed"}');
  const { limit, window } = body;
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)) throw badRequest('limit must be a whole number, 0 or more');
  if (window !== undefined && window !== 'sliding' && window !== 'fixed') throw badRequest('window must be sliding or fixed');
  if (typeof limit === 'number') limiter.setLimit(limit);
  if (window !== undefined) limiter.setWindow(window);
  return { limit: limiter.limit(), window: limiter.window() };
}

async function addAgents(ctx: Context): Promise<Reply> {
  const body = await readJson(ctx);
  if (!isObject(body) || typeof body.pool !== 'string' || !Array.isArray(body.agents)) {
    throw badRequest('body must be {"pool": "apool-...", "agents": [...]}');
  }
  const pool = requirePool(ctx.store, body.pool);
  const specs = body.agents.map((agent) => readAgentFields(agent, true));
  const ids = specs.map((spec) => {
    const agent = addAgent(ctx.store, pool.id, { status: spec.status ?? 'idle', ipAddress: spec.ipAddress, lastPingAt: spec.lastPingAt, createdAt: spec.createdAt }, ctx.now);
    agent.name = spec.name ?? null;
    return agent.id;
  });
  return ok({ ids });
}

async function updateAgent(ctx: Context): Promise<Reply> {
  const agent = requireAgent(ctx.store, ctx.params.id);
  const fields = readAgentFields(await readJson(ctx), false);
  if (fields.status !== undefined) agent.status = fields.status;
  if (fields.lastPingAt !== undefined) agent.lastPingAt = fields.lastPingAt;
  if (fields.name !== undefined) agent.name = fields.name;
  if (fields.ipAddress !== undefined) agent.ipAddress = fields.ipAddress;
  if (fields.createdAt !== undefined) agent.createdAt = fields.createdAt;
  return ok(agentResource(agent));
}

function dumpState(store: Store, nativeKind: NativeKindName): unknown {
  return {
    organizations: [...store.orgs.values()].map((org) => ({
      name: org.name,
      'max-agent-pools': org.maxAgentPools,
      workspaces: [...org.workspaces].map(([id, name]) => ({ id, name })),
      'policy-sets': [...org.policySets.values()].map((set) => policySetState(store, set, nativeKind)),
      policies: policiesOf(store, org.name).map((policy) => ({
        id: policy.id,
        name: policy.name,
        kind: kindWord(policy.kind, nativeKind),
        description: policy.description,
        query: policy.query,
        'enforcement-level': policy.level,
        'policy-set-ids': policy.policySetIds,
        'updated-at': policy.updatedAt,
        code: policy.code === null ? null : policy.code.toString('utf8'),
      })),
      'agent-pools': poolsOf(store, org.name).map((pool) => ({
        id: pool.id,
        name: pool.name,
        'created-at': pool.createdAt,
        'organization-scoped': pool.organizationScoped,
        'allowed-workspaces': pool.allowedWorkspaceIds,
        tokens: tokensOf(store, pool.id).map((token) => ({
          id: token.id,
          description: token.description,
          token: token.token,
          'created-at': token.createdAt,
          'last-used-at': token.lastUsedAt,
        })),
        agents: agentsOf(store, pool.id).map((agent) => ({
          id: agent.id,
          name: agent.name,
          status: agent.status,
          'ip-address': agent.ipAddress,
          'last-ping-at': agent.lastPingAt,
          'created-at': agent.createdAt,
        })),
      })),
    })),
  };
}

/** A set as the state shows it: settings, scope, versions and parameters, sensitive values included (what the service holds). */
function policySetState(store: Store, set: PolicySetRecord, nativeKind: NativeKindName): unknown {
  return {
    id: set.id,
    name: set.name,
    kind: kindWord(set.kind, nativeKind),
    description: set.description,
    global: set.global,
    'policy-ids': setPolicyIds(store, set),
    'workspace-ids': set.workspaceIds,
    'project-ids': set.projectIds,
    'workspace-exclusion-ids': set.workspaceExclusionIds,
    'tag-selectors': set.tagSelectors.map(selectorText),
    'scoping-type': set.scopingType,
    'tag-selector-match': set.tagMatch,
    'project-exclusion-ids': set.projectExclusionIds,
    'current-version': set.currentVersionId,
    versions: set.versionIds.map((id) => store.versions.get(id)).filter((v) => v !== undefined).map((version) => ({
      id: version.id,
      status: version.outcome !== null && version.status === 'ingressing' ? `ingressing (then ${version.outcome.status})` : version.status,
      'error-message': version.outcome?.errorMessage ?? version.errorMessage,
      // The policies its config file declares, at the levels it gives them: what the service enforces once it is current.
      policies: (version.outcome?.policies ?? []).map((p) => ({ name: p.name, level: p.level })),
    })),
    parameters: [...set.parameters.values()].map((parameter) => ({ key: parameter.key, value: parameter.value, sensitive: parameter.sensitive })),
  };
}
