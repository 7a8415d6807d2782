/**
 * JSON:API request bodies of the policy-set side, exactly as docs/api-behaviour.md (Policy sets) describes them: only
 * what is given is sent, `policies` never with a VCS repository, and relationship items carry `type` and `id` alone.
 */
import { wireKind, type NativeKindName, type TagSelector } from '../model.js';
import type { CreatePolicySetInput, CreatePolicySetParameterInput, PolicySetRelationship, UpdatePolicySetInput, UpdatePolicySetParameterInput } from './types.js';

type Attributes = Record<string, unknown>;

/** The resource type of each relationship's items. */
export const RELATIONSHIP_TYPES: Readonly<Record<PolicySetRelationship, string>> = {
  policies: 'policies',
  workspaces: 'workspaces',
  projects: 'projects',
  'workspace-exclusions': 'workspaces',
  'project-exclusions': 'projects',
};

/** `{"data":[{"type":"workspaces","id":"ws-…"}]}` */
export function relationshipBody(relationship: PolicySetRelationship, ids: readonly string[]): unknown {
  const type = RELATIONSHIP_TYPES[relationship];
  return { data: ids.map((id) => ({ type, id })) };
}

/** Each optional setting that is given (undefined or null: not sent, so the service keeps its default or its value). */
function settings(input: UpdatePolicySetInput): Attributes {
  const attributes: Attributes = {};
  if (input.name !== undefined) attributes.name = input.name;
  if (input.description !== undefined) attributes.description = input.description;
  if (input.global !== undefined) attributes.global = input.global;
  if (input.overridable !== undefined) attributes.overridable = input.overridable;
  if (input.agentEnabled !== undefined) attributes['agent-enabled'] = input.agentEnabled;
  if (input.policyToolVersion !== undefined) attributes['policy-tool-version'] = input.policyToolVersion;
  if (input.policiesPath !== undefined) attributes['policies-path'] = input.policiesPath;
  if (input.policyUpdatePatterns !== undefined) attributes['policy-update-patterns'] = [...input.policyUpdatePatterns];
  if (input.scopingType !== undefined) attributes['scoping-type'] = input.scopingType;
  if (input.tagMatch !== undefined) attributes['tag-selector-match'] = input.tagMatch;
  return attributes;
}

/** A selector as go-tfe's `PolicySetTagSelector` sends it; `tag-value` null for a key alone. */
function selectorBody(s: TagSelector): Attributes {
  return { 'tag-key': s.key, 'tag-value': s.value, 'is-exclude': s.exclude };
}

/** The body of `POST` / `DELETE /policy-sets/:id/tag-selectors`: `{"data": [selector, …]}`, plain objects, as go-tfe sends it. */
export function tagSelectorsBody(selectors: readonly TagSelector[]): unknown {
  return { data: selectors.map(selectorBody) };
}

export function createPolicySetBody(input: CreatePolicySetInput, nativeKind: NativeKindName): unknown {
  const attributes: Attributes = {
    name: input.name,
    description: input.description,
    kind: wireKind(input.kind, nativeKind),
    global: input.global,
    ...settings({
      ...(input.overridable === undefined || input.overridable === null ? {} : { overridable: input.overridable }),
      ...(input.agentEnabled === undefined || input.agentEnabled === null ? {} : { agentEnabled: input.agentEnabled }),
      ...(input.policyToolVersion === undefined || input.policyToolVersion === null ? {} : { policyToolVersion: input.policyToolVersion }),
      ...(input.policiesPath === undefined || input.policiesPath === null ? {} : { policiesPath: input.policiesPath }),
      ...(input.policyUpdatePatterns === undefined ? {} : { policyUpdatePatterns: input.policyUpdatePatterns }),
      ...(input.scopingType === undefined ? {} : { scopingType: input.scopingType }),
      ...(input.tagMatch === undefined ? {} : { tagMatch: input.tagMatch }),
    }),
    ...(input.tagSelectors === undefined || input.tagSelectors.length === 0 ? {} : { 'tag-selectors': input.tagSelectors.map(selectorBody) }),
  };
  const relationships: Record<string, unknown> = {};
  const lists: Array<[PolicySetRelationship, readonly string[] | undefined]> = [
    ['policies', input.policyIds],
    ['workspaces', input.workspaceIds],
    ['projects', input.projectIds],
    ['workspace-exclusions', input.workspaceExclusionIds],
    ['project-exclusions', input.projectExclusionIds],
  ];
  for (const [name, ids] of lists) if (ids !== undefined && ids.length > 0) relationships[name] = relationshipBody(name, ids);
  const data: Record<string, unknown> = { type: 'policy-sets', attributes };
  if (Object.keys(relationships).length > 0) data.relationships = relationships;
  return { data };
}

export function updatePolicySetBody(input: UpdatePolicySetInput): unknown {
  return { data: { type: 'policy-sets', attributes: settings(input) } };
}

export function createParameterBody(input: CreatePolicySetParameterInput): unknown {
  return { data: { type: 'vars', attributes: { key: input.key, value: input.value, category: 'policy-set', sensitive: input.sensitive } } };
}

export function updateParameterBody(id: string, input: UpdatePolicySetParameterInput): unknown {
  const attributes: Attributes = {};
  if (input.key !== undefined) attributes.key = input.key;
  if (input.value !== undefined) attributes.value = input.value;
  if (input.sensitive !== undefined) attributes.sensitive = input.sensitive;
  return { data: { type: 'vars', id, attributes } };
}
