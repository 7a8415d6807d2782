/**
 * JSON:API request bodies, exactly as docs/api-behaviour.md (Requests, Policies, Agent pools) describes
 * them: never two spellings of one field.
 */
import { isPolicyKind, wireKind, type EnforcementLevel, type NativeKindName, type PolicyKind } from '../model.js';
import type { CreateAgentPoolInput, CreatePolicyInput, PolicyRef, UpdateAgentPoolInput, UpdatePolicyInput } from './types.js';

type Attributes = Record<string, unknown>;

/**
 * How an enforcement level is spelled: `enforcement-level` (every server since mid-2023), or under
 * `legacy` the deprecated `enforce` array alone, which older servers read. Never both: the vendor's
 * own client refuses to send the pair, and a server may reject it.
 */
function levelAttributes(name: string, kind: PolicyKind, level: EnforcementLevel, dialect: Dialect): Attributes {
  if (!dialect.legacy) return { 'enforcement-level': level };
  return { enforce: [{ path: enforcePath(name, kind, dialect.nativeKind), mode: level }] };
}

/** How the API spells what differs between servers: the level (`legacy`: `enforce` only) and the native kind's word. */
export interface Dialect {
  legacy: boolean;
  nativeKind: NativeKindName;
}

/** `<name>.native` (`<name>.sentinel`) or `<name>.rego`: a native path that does not match would silently mean hard-mandatory. */
export function enforcePath(name: string, kind: PolicyKind, nativeKind: NativeKindName): string {
  return `${name}.${kind === 'opa' ? 'rego' : nativeKind}`;
}

export function createPolicyBody(input: CreatePolicyInput, dialect: Dialect): unknown {
  const attributes: Attributes = {
    name: input.name,
    description: input.description,
    kind: wireKind(input.kind, dialect.nativeKind),
    ...levelAttributes(input.name, input.kind, input.enforcementLevel, dialect),
  };
  if (input.kind === 'opa' && input.query !== null) attributes.query = input.query;
  const policySets = input.policySetIds.map((id) => ({ id, type: 'policy-sets' }));
  return { data: { type: 'policies', attributes, relationships: { 'policy-sets': { data: policySets } } } };
}

/** Only the fields being changed; `enforcement-level` alone is a documented valid payload. */
export function updatePolicyBody(policy: PolicyRef, input: UpdatePolicyInput, dialect: Dialect): unknown {
  const { kind } = policy;
  if (!isPolicyKind(kind)) throw new Error(`policy "${policy.name}" is of kind ${kind || '(none)'}, which this tool never updates`);
  const attributes: Attributes = {};
  if (input.description !== undefined) attributes.description = input.description;
  if (input.enforcementLevel !== undefined) Object.assign(attributes, levelAttributes(policy.name, kind, input.enforcementLevel, dialect));
  if (input.query !== undefined) attributes.query = input.query;
  return { data: { type: 'policies', attributes } };
}

export function createAgentPoolBody(input: CreateAgentPoolInput): unknown {
  const attributes: Attributes = { name: input.name, 'organization-scoped': input.organizationScoped };
  return poolDocument(attributes, input.allowedWorkspaceIds, input.allowedProjectIds, input.excludedWorkspaceIds);
}

/** Name and scope always: a PATCH that leaves `organization-scoped` out may set it to its documented default, true. */
export function updateAgentPoolBody(input: UpdateAgentPoolInput): unknown {
  const attributes: Attributes = { name: input.name, 'organization-scoped': input.organizationScoped };
  return poolDocument(attributes, input.allowedWorkspaceIds, input.allowedProjectIds, input.excludedWorkspaceIds);
}

/** A pool document with each access list that is given (null or undefined: not sent, so the service keeps it). */
function poolDocument(attributes: Attributes, allowed?: string[] | null, projects?: string[] | null, excluded?: string[] | null): unknown {
  const relationships: Record<string, unknown> = {};
  const refs = (ids: string[], type: string) => ({ data: ids.map((id) => ({ id, type })) });
  if (allowed !== undefined && allowed !== null) relationships['allowed-workspaces'] = refs(allowed, 'workspaces');
  if (projects !== undefined && projects !== null) relationships['allowed-projects'] = refs(projects, 'projects');
  if (excluded !== undefined && excluded !== null) relationships['excluded-workspaces'] = refs(excluded, 'workspaces');
  if (Object.keys(relationships).length === 0) return { data: { type: 'agent-pools', attributes } };
  return { data: { type: 'agent-pools', attributes, relationships } };
}
