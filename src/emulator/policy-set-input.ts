/**
 * Validation of policy-set create and update bodies, each failure a 422 in the service's shape. The rules are the
 * service's (docs/api-behaviour.md, Policy sets): a name taken, a kind outside the dialect's list, `vcs-repo` with
 * `policies`, `global` with `workspaces` or `projects`; `agent-enabled` false clears `policy-tool-version`, and a native
 * set's `overridable` (an opa set keeps it, false when never given); `policy-update-patterns` is a list of strings.
 */
import { invalid, isObject, ReplyError } from './http.js';
import type { RecordKind } from './records.js';
import type { TagMatch, TagSelector } from '../model.js';
import type { OrgRecord, PolicySetRecord } from './store.js';
import type { Behaviour } from './types.js';
import { checkName, optionalBoolean, optionalString, readDocument, relationshipIds } from './validate.js';

export interface SetMembers {
  policyIds: string[];
  workspaceIds: string[];
  projectIds: string[];
  workspaceExclusionIds: string[];
  projectExclusionIds: string[];
}

type Settings = 'overridable' | 'agentEnabled' | 'policyToolVersion' | 'policiesPath' | 'policyUpdatePatterns' | 'vcsRepo' | 'tagSelectors' | 'scopingType' | 'tagMatch';

export type PolicySetCreate = Pick<PolicySetRecord, 'name' | 'description' | 'kind' | 'global' | Settings> & SetMembers;

export type PolicySetUpdate = Partial<Pick<PolicySetRecord, 'name' | 'description' | 'global' | Exclude<Settings, 'tagSelectors'>>>;

/**
 * The kinds a set takes: the document's `native` and `opa`, or the hosted service's `sentinel`, `opa` and beta
 * `tfpolicy`. The hosted dialect refuses another word as Rails does (`Kind is not included in the list`); the
 * document's dialect in its own words (`kind must be one of native, opa`): clients must take either as the refusal.
 */
export function setKind(word: unknown, behaviour: Behaviour): RecordKind {
  const hosted = behaviour.nativeKind === 'sentinel';
  const words = hosted ? ['sentinel', 'opa', 'tfpolicy'] : ['native', 'opa'];
  if (typeof word !== 'string' || !words.includes(word)) {
    throw invalid(hosted ? 'Kind is not included in the list' : `kind must be one of ${words.join(', ')}`, '/data/attributes/kind');
  }
  return word === behaviour.nativeKind ? 'native' : (word as RecordKind);
}

export function parseSetCreate(body: unknown, org: OrgRecord, policyExists: (id: string) => boolean, behaviour: Behaviour): PolicySetCreate {
  const { attributes, relationships } = readDocument(body, 'policy-sets');
  const name = checkName(attributes.name);
  if ([...org.policySets.values()].some((set) => set.name === name)) throw invalid('Name has already been taken', '/data/attributes/name');
  const kind = setKind(attributes.kind ?? behaviour.nativeKind, behaviour);
  const global = optionalBoolean(attributes, 'global') ?? false;
  const agentEnabled = optionalBoolean(attributes, 'agent-enabled') ?? false;
  const vcsRepo = readVcsRepo(attributes['vcs-repo']);
  const members: SetMembers = {
    policyIds: relationshipIds(relationships, 'policies', 'policies', policyExists) ?? [],
    workspaceIds: relationshipIds(relationships, 'workspaces', 'workspaces', (id) => org.workspaces.has(id)) ?? [],
    projectIds: relationshipIds(relationships, 'projects', 'projects', (id) => org.projects.has(id)) ?? [],
    workspaceExclusionIds: relationshipIds(relationships, 'workspace-exclusions', 'workspaces', (id) => org.workspaces.has(id)) ?? [],
    projectExclusionIds: relationshipIds(relationships, 'project-exclusions', 'projects', (id) => org.projects.has(id)) ?? [],
  };
  if (vcsRepo !== null && members.policyIds.length > 0) {
    throw invalid('Policies cannot be added to a policy set with a VCS repository', '/data/relationships/policies');
  }
  checkGlobalScope(global, members.workspaceIds.length + members.projectIds.length);
  const tagSelectors = readTagSelectors(attributes['tag-selectors'], '/data/attributes/tag-selectors') ?? [];
  checkTagScope(tagSelectors, members.workspaceIds.length + members.projectIds.length);
  return {
    name,
    description: optionalString(attributes, 'description', true) ?? null,
    kind,
    global,
    overridable: keepsOverridable(kind, agentEnabled) ? (optionalBoolean(attributes, 'overridable') ?? false) : null,
    agentEnabled,
    policyToolVersion: agentEnabled ? (optionalString(attributes, 'policy-tool-version', true) ?? null) : null,
    policiesPath: optionalString(attributes, 'policies-path', true) ?? null,
    policyUpdatePatterns: updatePatterns(attributes) ?? [],
    vcsRepo,
    tagSelectors,
    scopingType: readScopingType(attributes) ?? (tagSelectors.some((s) => !s.exclude) ? 'tag' : 'explicit'),
    tagMatch: readTagMatch(attributes) ?? 'any',
    ...members,
  };
}

/**
 * `tag-selectors`: each `{"tag-key", "tag-value" (null: a key alone), "is-exclude"}` (go-tfe's `PolicySetTagSelector`);
 * undefined when not sent. In an attribute of a set document and in the `data` of the tag-selectors endpoints alike.
 */
export function readTagSelectors(value: unknown, pointer: string): TagSelector[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw invalid('tag-selectors must be a list', pointer);
  return value.map((entry, index) => {
    const key = isObject(entry) ? entry['tag-key'] : undefined;
    const tagValue = isObject(entry) ? entry['tag-value'] ?? null : undefined;
    const exclude = isObject(entry) ? entry['is-exclude'] ?? false : undefined;
    if (typeof key !== 'string' || key === '' || (tagValue !== null && typeof tagValue !== 'string') || typeof exclude !== 'boolean') {
      throw invalid('a tag selector is {"tag-key": KEY, "tag-value": VALUE or null, "is-exclude": true or false}', `${pointer}/${index}`);
    }
    return { key, value: tagValue as string | null, exclude };
  });
}

/**
 * Tag-based scoping and explicit workspace or project associations are mutually exclusive (the vendor's provider,
 * `tfe_tag_policy_set`): a set with inclusion selectors takes no `workspaces` or `projects`, and the reverse.
 * Exclusion selectors go with either, a global set included (go-tfe's `TestPolicySetsAddTagSelectors`).
 */
export function checkTagScope(selectors: readonly TagSelector[], scoped: number): void {
  if (scoped > 0 && selectors.some((s) => !s.exclude)) {
    throw invalid('Tag-based scoping and explicit workspace or project associations are mutually exclusive', '/data/attributes/tag-selectors');
  }
}

function readScopingType(attributes: Record<string, unknown>): 'tag' | 'explicit' | undefined {
  const value = attributes['scoping-type'];
  if (value === undefined || value === null) return undefined;
  if (value !== 'tag' && value !== 'explicit') throw invalid('scoping-type must be tag or explicit', '/data/attributes/scoping-type');
  return value;
}

function readTagMatch(attributes: Record<string, unknown>): TagMatch | undefined {
  const value = attributes['tag-selector-match'];
  if (value === undefined || value === null) return undefined;
  if (value !== 'any' && value !== 'all') throw invalid('tag-selector-match must be any or all', '/data/attributes/tag-selector-match');
  return value;
}

/** A global set applies to every workspace: the service takes `workspaces` and `projects` only when `global` is false. */
export function checkGlobalScope(global: boolean, scoped: number): void {
  if (global && scoped > 0) throw invalid('Workspaces and projects can only be set when global is false', '/data/attributes/global');
}

export function parseSetUpdate(body: unknown, set: PolicySetRecord, org: OrgRecord, behaviour: Behaviour): PolicySetUpdate {
  const { attributes } = readDocument(body, 'policy-sets');
  const update: PolicySetUpdate = {};
  if (attributes.name !== undefined) {
    const name = checkName(attributes.name);
    if ([...org.policySets.values()].some((other) => other.id !== set.id && other.name === name)) throw invalid('Name has already been taken', '/data/attributes/name');
    update.name = name;
  }
  if (attributes.kind !== undefined && setKind(attributes.kind, behaviour) !== set.kind) throw invalid('Kind cannot be changed', '/data/attributes/kind');
  const description = optionalString(attributes, 'description', true);
  if (description !== undefined) update.description = description;
  const global = optionalBoolean(attributes, 'global');
  if (global !== undefined) {
    checkGlobalScope(global, set.workspaceIds.length + set.projectIds.length);
    update.global = global;
  }
  const agentEnabled = optionalBoolean(attributes, 'agent-enabled') ?? set.agentEnabled;
  if (attributes['agent-enabled'] !== undefined) update.agentEnabled = agentEnabled;
  const overridable = optionalBoolean(attributes, 'overridable');
  if (!keepsOverridable(set.kind, agentEnabled)) update.overridable = null;
  else if (overridable !== undefined) update.overridable = overridable;
  else if (set.overridable === null) update.overridable = false;
  const tool = optionalString(attributes, 'policy-tool-version', true);
  if (!agentEnabled) update.policyToolVersion = null;
  else if (tool !== undefined) update.policyToolVersion = tool;
  const policiesPath = optionalString(attributes, 'policies-path', true);
  if (policiesPath !== undefined) update.policiesPath = policiesPath;
  const patterns = updatePatterns(attributes);
  if (patterns !== undefined) update.policyUpdatePatterns = patterns;
  if (attributes['vcs-repo'] !== undefined) update.vcsRepo = readVcsRepo(attributes['vcs-repo']);
  const scopingType = readScopingType(attributes);
  if (scopingType !== undefined) update.scopingType = scopingType;
  const tagMatch = readTagMatch(attributes);
  if (tagMatch !== undefined) update.tagMatch = tagMatch;
  return update;
}

/**
 * Whether a set holds `overridable`: an opa set always (go-tfe `TestPolicySetsCreate` "with all attributes provided -
 * OPA", `TestPolicySetsUpdate` "with valid attributes-OPA"), a native one only while agent-enabled
 * (`TestPolicySetsUpdate` "with valid attributes"); the beta `tfpolicy`, with no source, as the native kind.
 */
function keepsOverridable(kind: PolicySetRecord['kind'], agentEnabled: boolean): boolean {
  return kind === 'opa' || agentEnabled;
}

/** `policy-update-patterns`: a list of strings (null: none); undefined when not sent. */
function updatePatterns(attributes: Record<string, unknown>): string[] | undefined {
  const value = attributes['policy-update-patterns'];
  if (value === undefined) return undefined;
  if (value === null) return [];
  if (!Array.isArray(value) || value.some((pattern) => typeof pattern !== 'string')) {
    throw invalid('policy-update-patterns must be a list of strings', '/data/attributes/policy-update-patterns');
  }
  return [...(value as string[])];
}

function readVcsRepo(value: unknown): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (!isObject(value) || typeof value.identifier !== 'string') throw invalid('vcs-repo needs an identifier', '/data/attributes/vcs-repo');
  return { ...value };
}

/** A write beyond one of the edition's limits. */
export function overLimit(what: string, limit: number): ReplyError {
  return new ReplyError(422, [{ status: '422', title: 'invalid attribute', detail: `${what} limit of ${limit} reached for this organization's plan`, source: { pointer: '/data' } }]);
}
