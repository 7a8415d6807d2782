/**
 * Readers of the policy-set side of the API: sets, versions, parameters, workspaces, projects, the entitlement set.
 * Lenient in what they accept (a missing attribute has its default, a relationship left out is empty), but only `type`
 * and `id` are read from a relationship's items, and every id must have its resource's shape (ids.ts): an answer that
 * gives another is unusable, never put into a URL.
 */
import { kindOfWire, type PolicyKind, type TagSelector, type WorkspaceTag } from '../model.js';
import { checkedId, type IdKind } from './ids.js';
import { field, int, isObject, requiredStr, str } from './json-api.js';
import type { Entitlements, PolicySet, PolicySetParameter, PolicySetVersion, Project, Workspace } from './types.js';

/** Ids of a to-many relationship whose items have `type`; a missing relationship is empty. */
function memberIds(resource: unknown, name: string, kind: IdKind): string[] {
  const data = field(field(field(resource, 'relationships'), name), 'data');
  if (!Array.isArray(data)) return [];
  return data.filter((item) => field(item, 'id') !== undefined).map((item) => checkedId(kind, field(item, 'id')));
}

/** The id of a to-one relationship, or null when it is absent or empty. */
function oneId(resource: unknown, name: string, kind: IdKind): string | null {
  const id = field(field(field(field(resource, 'relationships'), name), 'data'), 'id');
  return id === undefined || id === null ? null : checkedId(kind, id);
}

function flag(value: unknown, fallback: boolean): boolean {
  return typeof value === 'boolean' ? value : fallback;
}

/** `included` resources of `type`, by id. */
function includedById(document: unknown, type: string): Map<string, unknown> {
  const included = field(document, 'included');
  const out = new Map<string, unknown>();
  if (!Array.isArray(included)) return out;
  for (const item of included) {
    const id = str(field(item, 'id'));
    if (id !== null && field(item, 'type') === type) out.set(id, item);
  }
  return out;
}

/** A set, its included versions read from `document` (the list or show answer it came in) when present. */
export function parsePolicySet(resource: unknown, document?: unknown): PolicySet {
  const attributes = field(resource, 'attributes');
  const wire = field(attributes, 'kind');
  const known = kindOfWire(wire);
  const kind: PolicyKind = known ?? 'native';
  const policyIds = memberIds(resource, 'policies', 'policy');
  const workspaceIds = memberIds(resource, 'workspaces', 'workspace');
  const projectIds = memberIds(resource, 'projects', 'project');
  const currentVersionId = oneId(resource, 'current-version', 'policy-set-version');
  const newestVersionId = oneId(resource, 'newest-version', 'policy-set-version');
  const versions = includedById(document, 'policy-set-versions');
  const included = (id: string | null): PolicySetVersion | null => {
    const found = id === null ? undefined : versions.get(id);
    return found === undefined ? null : parsePolicySetVersion(found);
  };
  const vcsRepo = field(attributes, 'vcs-repo');
  return {
    id: checkedId('policy-set', field(resource, 'id')),
    name: requiredStr(resource, 'attributes.name', field(attributes, 'name')),
    description: str(field(attributes, 'description')),
    kind,
    foreignKind: known === null ? (str(wire) ?? '') : null,
    global: flag(field(attributes, 'global'), false),
    overridable: typeof field(attributes, 'overridable') === 'boolean' ? (field(attributes, 'overridable') as boolean) : null,
    agentEnabled: flag(field(attributes, 'agent-enabled'), false),
    policyToolVersion: str(field(attributes, 'policy-tool-version')),
    policiesPath: str(field(attributes, 'policies-path')),
    policyUpdatePatterns: strings(field(attributes, 'policy-update-patterns')),
    versioned: flag(field(attributes, 'versioned'), false),
    vcsBacked: isObject(vcsRepo),
    policyCount: int(field(attributes, 'policy-count'), policyIds.length),
    workspaceCount: int(field(attributes, 'workspace-count'), workspaceIds.length),
    projectCount: int(field(attributes, 'project-count'), projectIds.length),
    createdAt: str(field(attributes, 'created-at')),
    updatedAt: str(field(attributes, 'updated-at')),
    organization: str(field(field(field(field(resource, 'relationships'), 'organization'), 'data'), 'id')) ?? '',
    policyIds,
    workspaceIds,
    projectIds,
    workspaceExclusionIds: memberIds(resource, 'workspace-exclusions', 'workspace'),
    projectExclusionIds: memberIds(resource, 'project-exclusions', 'project'),
    tagSelectors: tagSelectors(field(attributes, 'tag-selectors')),
    scopingType: str(field(attributes, 'scoping-type')),
    tagMatch: field(attributes, 'tag-selector-match') === 'all' ? 'all' : field(attributes, 'tag-selector-match') === 'any' ? 'any' : null,
    currentVersionId,
    newestVersionId,
    currentVersion: included(currentVersionId),
    newestVersion: included(newestVersionId),
  };
}

/** `tag-selectors` read leniently: an entry without a key is left out; a value that is not a string is a key alone. */
function tagSelectors(value: unknown): TagSelector[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry): TagSelector[] => {
    const key = str(field(entry, 'tag-key'));
    return key === null ? [] : [{ key, value: str(field(entry, 'tag-value')), exclude: field(entry, 'is-exclude') === true }];
  });
}

/**
 * A workspace of a list asked with `include=effective_tag_bindings`: its tags are the included bindings its
 * relationship names (an empty value is a key alone).
 */
export function parseTaggedWorkspace(resource: unknown, document: unknown): Workspace {
  const refs = field(field(field(resource, 'relationships'), 'effective-tag-bindings'), 'data');
  const included = field(document, 'included');
  const byId = new Map((Array.isArray(included) ? included : []).map((r) => [str(field(r, 'id')), r] as const));
  const tags = (Array.isArray(refs) ? refs : []).flatMap((ref): WorkspaceTag[] => {
    const binding = byId.get(str(field(ref, 'id')));
    const key = str(field(field(binding, 'attributes'), 'key'));
    const value = str(field(field(binding, 'attributes'), 'value'));
    return key === null ? [] : [{ key, value: value === null || value === '' ? null : value }];
  });
  return { ...parseWorkspace(resource), tags };
}

/** A list of strings read leniently: anything else is an empty list, and an item that is not a string is left out. */
function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

export function parsePolicySetVersion(resource: unknown): PolicySetVersion {
  const attributes = field(resource, 'attributes');
  const stamps = field(attributes, 'status-timestamps');
  const statusTimestamps: Record<string, string> = {};
  if (isObject(stamps)) {
    for (const [key, value] of Object.entries(stamps)) if (typeof value === 'string') statusTimestamps[key] = value;
  }
  const upload = str(field(field(resource, 'links'), 'upload'));
  return {
    id: checkedId('policy-set-version', field(resource, 'id')),
    status: str(field(attributes, 'status')) ?? '',
    source: str(field(attributes, 'source')),
    errorMessage: nonEmpty(field(attributes, 'error-message')),
    error: nonEmpty(field(attributes, 'error')),
    statusTimestamps,
    createdAt: str(field(attributes, 'created-at')),
    updatedAt: str(field(attributes, 'updated-at')),
    policySetId: oneId(resource, 'policy-set', 'policy-set'),
    uploadUrl: upload === null || upload === '' ? null : upload,
  };
}

function nonEmpty(value: unknown): string | null {
  const text = str(value);
  return text === null || text === '' ? null : text;
}

export function parsePolicySetParameter(resource: unknown): PolicySetParameter {
  const attributes = field(resource, 'attributes');
  const sensitive = flag(field(attributes, 'sensitive'), false);
  return {
    id: checkedId('parameter', field(resource, 'id')),
    key: requiredStr(resource, 'attributes.key', field(attributes, 'key')),
    // Whatever a server answers for a sensitive one, it is never kept: the value is write-only.
    value: sensitive ? '' : (str(field(attributes, 'value')) ?? ''),
    sensitive,
    category: str(field(attributes, 'category')) ?? 'policy-set',
  };
}

export function parseWorkspace(resource: unknown): Workspace {
  return {
    id: checkedId('workspace', field(resource, 'id')),
    name: requiredStr(resource, 'attributes.name', field(field(resource, 'attributes'), 'name')),
    projectId: oneId(resource, 'project', 'project'),
  };
}

export function parseProject(resource: unknown): Project {
  return {
    id: checkedId('project', field(resource, 'id')),
    name: requiredStr(resource, 'attributes.name', field(field(resource, 'attributes'), 'name')),
  };
}

/** A limit: a non-negative number, or null (no limit, or not said). */
function limit(value: unknown): number | null {
  const n = int(value, -1);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

export function parseEntitlements(resource: unknown): Entitlements {
  const attributes = field(resource, 'attributes');
  return {
    id: str(field(resource, 'id')) ?? '',
    policySetLimit: limit(field(attributes, 'policy-set-limit')),
    policyLimit: limit(field(attributes, 'policy-limit')),
    versionedPolicySetLimit: limit(field(attributes, 'versioned-policy-set-limit')),
    attributes: isObject(attributes) ? { ...attributes } : {},
  };
}
