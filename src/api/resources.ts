import { LEVELS_BY_KIND, type AgentStatus, type EnforcementLevel, type PolicyKind } from '../model.js';
import type { Agent, AgentPool, Policy } from './types.js';
import { field, int, relatedIds, requiredStr, str } from './json-api.js';

const AGENT_STATUSES: readonly AgentStatus[] = ['idle', 'busy', 'exited', 'errored', 'unknown'];

export function parsePolicy(resource: unknown): Policy {
  const attributes = field(resource, 'attributes');
  const links = field(resource, 'links');
  const id = requiredStr(resource, 'id', field(resource, 'id'));
  const kind: PolicyKind = field(attributes, 'kind') === 'opa' ? 'opa' : 'native';
  const policySetIds = relatedIds(resource, 'policy-sets');
  return {
    id,
    name: requiredStr(resource, 'attributes.name', field(attributes, 'name')),
    description: str(field(attributes, 'description')),
    kind,
    query: kind === 'opa' ? str(field(attributes, 'query')) : null,
    enforcementLevel: levelOf(attributes, kind),
    policySetCount: int(field(attributes, 'policy-set-count'), policySetIds.length),
    policySetIds,
    updatedAt: str(field(attributes, 'updated-at')),
    organization: str(field(field(field(field(resource, 'relationships'), 'organization'), 'data'), 'id')) ?? '',
    links: {
      self: str(field(links, 'self')) ?? `/api/v2/policies/${id}`,
      upload: str(field(links, 'upload')) ?? `/api/v2/policies/${id}/upload`,
      download: str(field(links, 'download')),
    },
  };
}

/** `enforcement-level`, else the deprecated `enforce[0].mode`, else the kind's default. */
function levelOf(attributes: unknown, kind: PolicyKind): EnforcementLevel {
  const allowed = LEVELS_BY_KIND[kind];
  const enforce = field(attributes, 'enforce');
  const candidates = [field(attributes, 'enforcement-level'), Array.isArray(enforce) ? field(enforce[0], 'mode') : undefined];
  for (const candidate of candidates) {
    const level = allowed.find((l) => l === candidate);
    if (level !== undefined) return level;
  }
  return kind === 'opa' ? 'advisory' : 'hard-mandatory';
}

export function parseAgentPool(resource: unknown): AgentPool {
  const attributes = field(resource, 'attributes');
  return {
    id: requiredStr(resource, 'id', field(resource, 'id')),
    name: requiredStr(resource, 'attributes.name', field(attributes, 'name')),
    createdAt: str(field(attributes, 'created-at')) ?? '',
    organizationScoped: field(attributes, 'organization-scoped') !== false,
    agentCount: int(field(attributes, 'agent-count'), 0),
    workspaceIds: relatedIds(resource, 'workspaces'),
    allowedWorkspaceIds: relatedIds(resource, 'allowed-workspaces'),
  };
}

export function parseAgent(resource: unknown): Agent {
  const attributes = field(resource, 'attributes');
  const status = AGENT_STATUSES.find((s) => s === field(attributes, 'status')) ?? 'unknown';
  return {
    id: requiredStr(resource, 'id', field(resource, 'id')),
    name: str(field(attributes, 'name')),
    status,
    ipAddress: str(field(attributes, 'ip-address')) ?? '',
    lastPingAt: str(field(attributes, 'last-ping-at')) ?? '',
  };
}
