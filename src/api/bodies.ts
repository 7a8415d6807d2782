/**
 * JSON:API request bodies, exactly as docs/api-behaviour.md (Requests, Policies, Agent pools) describes
 * them: never two spellings of one field.
 */
import type { EnforcementLevel, PolicyKind } from '../model.js';
import type { CreateAgentPoolInput, CreatePolicyInput, PolicyRef, UpdateAgentPoolInput, UpdatePolicyInput } from './types.js';

type Attributes = Record<string, unknown>;

/**
 * How an enforcement level is spelled: `enforcement-level` (every server since mid-2023), or under
 * `legacy` the deprecated `enforce` array alone, which older servers read. Never both: the vendor's
 * own client refuses to send the pair, and a server may reject it.
 */
function levelAttributes(name: string, kind: PolicyKind, level: EnforcementLevel, legacy: boolean): Attributes {
  if (!legacy) return { 'enforcement-level': level };
  return { enforce: [{ path: enforcePath(name, kind), mode: level }] };
}

/** `<name>.native` or `<name>.rego`: a native path that does not match would silently mean hard-mandatory. */
export function enforcePath(name: string, kind: PolicyKind): string {
  return `${name}.${kind === 'opa' ? 'rego' : 'native'}`;
}

export function createPolicyBody(input: CreatePolicyInput, legacy: boolean): unknown {
  const attributes: Attributes = {
    name: input.name,
    description: input.description,
    kind: input.kind,
    ...levelAttributes(input.name, input.kind, input.enforcementLevel, legacy),
  };
  if (input.kind === 'opa' && input.query !== null) attributes.query = input.query;
  const policySets = input.policySetIds.map((id) => ({ id, type: 'policy-sets' }));
  return { data: { type: 'policies', attributes, relationships: { 'policy-sets': { data: policySets } } } };
}

/** Only the fields being changed; `enforcement-level` alone is a documented valid payload. */
export function updatePolicyBody(policy: PolicyRef, input: UpdatePolicyInput, legacy: boolean): unknown {
  const attributes: Attributes = {};
  if (input.description !== undefined) attributes.description = input.description;
  if (input.enforcementLevel !== undefined) Object.assign(attributes, levelAttributes(policy.name, policy.kind, input.enforcementLevel, legacy));
  if (input.query !== undefined) attributes.query = input.query;
  return { data: { type: 'policies', attributes } };
}

export function createAgentPoolBody(input: CreateAgentPoolInput): unknown {
  const attributes: Attributes = { name: input.name, 'organization-scoped': input.organizationScoped };
  if (input.allowedWorkspaceIds === null) return { data: { type: 'agent-pools', attributes } };
  return { data: { type: 'agent-pools', attributes, relationships: allowedWorkspaces(input.allowedWorkspaceIds) } };
}

/** Name and scope always: a PATCH that leaves `organization-scoped` out may set it to its documented default, true. */
export function updateAgentPoolBody(input: UpdateAgentPoolInput): unknown {
  const attributes: Attributes = { name: input.name, 'organization-scoped': input.organizationScoped };
  if (input.allowedWorkspaceIds === undefined) return { data: { type: 'agent-pools', attributes } };
  return { data: { type: 'agent-pools', attributes, relationships: allowedWorkspaces(input.allowedWorkspaceIds) } };
}

function allowedWorkspaces(ids: string[]): unknown {
  return { 'allowed-workspaces': { data: ids.map((id) => ({ id, type: 'workspaces' })) } };
}
