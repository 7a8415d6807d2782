import { kindOfWire, LEVELS_BY_KIND, type EnforcementLevel, type PolicyKind } from '../model.js';
import type { Agent, AgentPool, AgentToken, MadeAgentToken, Policy } from './types.js';
import { enforcePath } from './bodies.js';
import { field, int, relatedIds, requiredStr, str } from './json-api.js';
import { checkedId } from './ids.js';

/**
 * `legacy` (servers older than mid-2023): the level is read from the deprecated `enforce` first.
 * Otherwise from `enforcement-level` first; the other spelling is the fallback either way.
 */
export function parsePolicy(resource: unknown, legacy = false): Policy {
  const attributes = field(resource, 'attributes');
  const links = field(resource, 'links');
  // Every id read here may become a path segment: one that is not an id of its kind makes the answer unusable.
  const id = checkedId('policy', requiredStr(resource, 'id', field(resource, 'id')));
  // `native` and `sentinel` both read as the native kind; a kind this tool does not know is kept as it came, never coerced.
  const wire = field(attributes, 'kind');
  const known = kindOfWire(wire);
  const policySetIds = relatedIds(resource, 'policy-sets').map((setId) => checkedId('policy-set', setId));
  const name = requiredStr(resource, 'attributes.name', field(attributes, 'name'));
  return {
    id,
    name,
    description: str(field(attributes, 'description')),
    kind: known ?? str(wire) ?? '',
    query: known === 'opa' ? str(field(attributes, 'query')) : null,
    // A kind this tool does not know has no level it could read: the native kind's rules stand in, never compared.
    enforcementLevel: levelOf(attributes, known ?? 'native', name, legacy),
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

function levelOf(attributes: unknown, kind: PolicyKind, name: string, legacy: boolean): EnforcementLevel {
  const explicit = LEVELS_BY_KIND[kind].find((l) => l === field(attributes, 'enforcement-level'));
  const fromEnforce = enforceLevel(field(attributes, 'enforce'), kind, name);
  const level = legacy ? fromEnforce ?? explicit : explicit ?? fromEnforce;
  return level ?? (kind === 'opa' ? 'advisory' : 'hard-mandatory');
}

/**
 * The level the deprecated `enforce` array gives: its first rule's mode, except that a native rule
 * whose path is neither `<name>.native` nor `<name>.sentinel` means hard-mandatory. Undefined when the array is empty (no code
 * uploaded yet) or unreadable.
 */
function enforceLevel(enforce: unknown, kind: PolicyKind, name: string): EnforcementLevel | undefined {
  if (!Array.isArray(enforce) || enforce.length === 0) return undefined;
  const mode = LEVELS_BY_KIND[kind].find((l) => l === field(enforce[0], 'mode'));
  if (mode === undefined) return undefined;
  const path = field(enforce[0], 'path');
  const matches = path === enforcePath(name, kind, 'native') || path === enforcePath(name, kind, 'sentinel');
  return kind === 'native' && !matches ? 'hard-mandatory' : mode;
}

export function parseAgentPool(resource: unknown): AgentPool {
  const attributes = field(resource, 'attributes');
  return {
    id: checkedId('agent-pool', requiredStr(resource, 'id', field(resource, 'id'))),
    name: requiredStr(resource, 'attributes.name', field(attributes, 'name')),
    createdAt: str(field(attributes, 'created-at')) ?? '',
    organizationScoped: field(attributes, 'organization-scoped') !== false,
    agentCount: int(field(attributes, 'agent-count'), 0),
    workspaceIds: relatedIds(resource, 'workspaces'),
    allowedWorkspaceIds: relatedIds(resource, 'allowed-workspaces'),
    allowedProjectIds: relatedIds(resource, 'allowed-projects'),
    excludedWorkspaceIds: relatedIds(resource, 'excluded-workspaces'),
  };
}

/** A token's metadata; its text, even where an answer carries it, is read only by `parseMadeAgentToken`. */
export function parseAgentToken(resource: unknown): AgentToken {
  const attributes = field(resource, 'attributes');
  return {
    id: checkedId('agent-token', requiredStr(resource, 'id', field(resource, 'id'))),
    description: str(field(attributes, 'description')) ?? '',
    createdAt: str(field(attributes, 'created-at')),
    lastUsedAt: str(field(attributes, 'last-used-at')),
    createdBy: str(field(field(field(field(resource, 'relationships'), 'created-by'), 'data'), 'id')),
  };
}

export function parseMadeAgentToken(resource: unknown): MadeAgentToken {
  return { ...parseAgentToken(resource), token: requiredStr(resource, 'attributes.token', field(field(resource, 'attributes'), 'token')) };
}

export function parseAgent(resource: unknown): Agent {
  const attributes = field(resource, 'attributes');
  // Kept as sent: a status this tool does not know matches no clean-up rule (reading it as `unknown` would).
  const status = str(field(attributes, 'status')) ?? '';
  return {
    id: checkedId('agent', requiredStr(resource, 'id', field(resource, 'id'))),
    name: str(field(attributes, 'name')),
    status,
    ipAddress: str(field(attributes, 'ip-address')),
    lastPingAt: str(field(attributes, 'last-ping-at')),
    createdAt: str(field(attributes, 'created-at')),
  };
}
