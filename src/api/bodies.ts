/** JSON:API request bodies, exactly as docs/api-behaviour.md (Requests, Policies, Agent pools) describes them. */
import type { CreateAgentPoolInput, CreatePolicyInput, UpdateAgentPoolInput, UpdatePolicyInput } from './types.js';

type Attributes = Record<string, unknown>;

/**
 * Sends `enforcement-level` and also the deprecated `enforce` array with the same level and the path
 * `<name>.native` / `<name>.rego`: servers older than mid-2023 read only `enforce`, and a consistent
 * pair means the same thing to every server (a wrong path would silently mean hard-mandatory).
 */
export function createPolicyBody(input: CreatePolicyInput): unknown {
  const extension = input.kind === 'opa' ? 'rego' : 'native';
  const attributes: Attributes = {
    name: input.name,
    description: input.description,
    kind: input.kind,
    'enforcement-level': input.enforcementLevel,
    enforce: [{ path: `${input.name}.${extension}`, mode: input.enforcementLevel }],
  };
  if (input.kind === 'opa' && input.query !== null) attributes.query = input.query;
  const policySets = input.policySetIds.map((id) => ({ id, type: 'policy-sets' }));
  return { data: { type: 'policies', attributes, relationships: { 'policy-sets': { data: policySets } } } };
}

/**
 * Only the fields being changed. `enforce` is not sent here: its path needs the policy's name, which
 * an update does not carry, and `enforcement-level` alone is a documented valid payload.
 */
export function updatePolicyBody(input: UpdatePolicyInput): unknown {
  const attributes: Attributes = {};
  if (input.description !== undefined) attributes.description = input.description;
  if (input.enforcementLevel !== undefined) attributes['enforcement-level'] = input.enforcementLevel;
  if (input.query !== undefined) attributes.query = input.query;
  return { data: { type: 'policies', attributes } };
}

export function createAgentPoolBody(input: CreateAgentPoolInput): unknown {
  const attributes: Attributes = { name: input.name, 'organization-scoped': input.organizationScoped };
  if (input.allowedWorkspaceIds === null) return { data: { type: 'agent-pools', attributes } };
  return { data: { type: 'agent-pools', attributes, relationships: allowedWorkspaces(input.allowedWorkspaceIds) } };
}

export function updateAgentPoolBody(input: UpdateAgentPoolInput): unknown {
  const attributes: Attributes = {};
  if (input.name !== undefined) attributes.name = input.name;
  if (input.organizationScoped !== undefined) attributes['organization-scoped'] = input.organizationScoped;
  if (input.allowedWorkspaceIds === undefined) return { data: { type: 'agent-pools', attributes } };
  return { data: { type: 'agent-pools', attributes, relationships: allowedWorkspaces(input.allowedWorkspaceIds) } };
}

function allowedWorkspaces(ids: string[]): unknown {
  return { 'allowed-workspaces': { data: ids.map((id) => ({ id, type: 'workspaces' })) } };
}
