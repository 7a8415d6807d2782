/** JSON:API serialisers of policy sets, their versions and parameters, workspaces, projects and the entitlement set. */
import type { NativeKindName } from '../model.js';
import { kindWord } from './records.js';
import type { OrgRecord, ParameterRecord, PolicySetRecord, VersionRecord } from './records.js';
import { policiesOf, type Store } from './store.js';

const BASE = '/api/v2';

const refs = (ids: readonly string[], type: string): { data: Array<{ id: string; type: string }> } => ({ data: ids.map((id) => ({ id, type })) });

/** The policies of a set: its members by relationship (a versioned set's come from its current version). */
export function setPolicyIds(store: Store, set: PolicySetRecord): string[] {
  return policiesOf(store, set.org).filter((policy) => policy.policySetIds.includes(set.id)).map((policy) => policy.id);
}

/** A set takes uploaded versions once it has one; a VCS-backed set gets its versions from the repository. */
export function isVersioned(set: PolicySetRecord): boolean {
  return set.vcsRepo !== null || set.versionIds.length > 0;
}

export function newestVersionId(set: PolicySetRecord): string | null {
  return set.versionIds.at(-1) ?? null;
}

export function policySetResource(store: Store, set: PolicySetRecord, nativeKind: NativeKindName): Record<string, unknown> {
  const policyIds = setPolicyIds(store, set);
  const current = set.currentVersionId === null ? undefined : store.versions.get(set.currentVersionId);
  const newest = newestVersionId(set);
  const versionRef = (id: string | null): { data: { id: string; type: string } | null } => ({ data: id === null ? null : { id, type: 'policy-set-versions' } });
  return {
    id: set.id,
    type: 'policy-sets',
    attributes: {
      name: set.name,
      description: set.description,
      kind: kindWord(set.kind, nativeKind),
      global: set.global,
      overridable: set.overridable,
      'agent-enabled': set.agentEnabled,
      'policy-tool-version': set.policyToolVersion,
      'policies-path': set.policiesPath,
      'policy-update-patterns': [...set.policyUpdatePatterns],
      versioned: isVersioned(set),
      'vcs-repo': set.vcsRepo,
      'policy-count': isVersioned(set) ? (current?.policyCount ?? 0) : policyIds.length,
      'workspace-count': set.workspaceIds.length,
      'project-count': set.projectIds.length,
      'tag-selectors': set.tagSelectors.map((s) => ({ 'tag-key': s.key, 'tag-value': s.value, 'is-exclude': s.exclude })),
      'scoping-type': set.scopingType,
      'tag-selector-match': set.tagMatch,
      'created-at': set.createdAt,
      'updated-at': set.updatedAt,
    },
    relationships: {
      organization: { data: { id: set.org, type: 'organizations' } },
      policies: refs(policyIds, 'policies'),
      workspaces: refs(set.workspaceIds, 'workspaces'),
      projects: refs(set.projectIds, 'projects'),
      'workspace-exclusions': refs(set.workspaceExclusionIds, 'workspaces'),
      'project-exclusions': refs(set.projectExclusionIds, 'projects'),
      'current-version': versionRef(set.currentVersionId),
      'newest-version': versionRef(newest),
    },
    links: { self: `${BASE}/policy-sets/${set.id}` },
  };
}

/** `upload`: the absolute upload link, while the version takes one. */
export function versionResource(version: VersionRecord, upload: string | null): Record<string, unknown> {
  const links: Record<string, string> = { self: `${BASE}/policy-set-versions/${version.id}` };
  if (upload !== null) links.upload = upload;
  return {
    id: version.id,
    type: 'policy-set-versions',
    attributes: {
      source: 'tfe-api',
      status: version.status,
      'status-timestamps': { ...version.statusTimestamps },
      error: version.status === 'errored' ? 'ingress_error' : null,
      'error-message': version.errorMessage,
      'ingress-attributes': null,
      'created-at': version.createdAt,
      'updated-at': version.updatedAt,
    },
    relationships: { 'policy-set': { data: { id: version.setId, type: 'policy-sets' } } },
    links,
  };
}

/** A sensitive parameter's value is answered empty, whatever was sent. */
export function parameterResource(set: PolicySetRecord, parameter: ParameterRecord): Record<string, unknown> {
  return {
    id: parameter.id,
    type: 'vars',
    attributes: { key: parameter.key, value: parameter.sensitive ? '' : parameter.value, category: 'policy-set', sensitive: parameter.sensitive },
    relationships: { configurable: { data: { id: set.id, type: 'policy-sets' }, links: { related: `${BASE}/policy-sets/${set.id}` } } },
    links: { self: `${BASE}/policy-sets/${set.id}/parameters/${parameter.id}` },
  };
}

export function workspaceResource(org: OrgRecord, id: string, name: string): Record<string, unknown> {
  const project = org.workspaceProjects.get(id);
  const relationships: Record<string, unknown> = { organization: { data: { id: org.name, type: 'organizations' } } };
  if (project !== undefined) relationships.project = { data: { id: project, type: 'projects' } };
  return { id, type: 'workspaces', attributes: { name }, relationships, links: { self: `${BASE}/workspaces/${id}` } };
}

export function projectResource(org: OrgRecord, id: string, name: string): Record<string, unknown> {
  return {
    id,
    type: 'projects',
    attributes: { name },
    relationships: { organization: { data: { id: org.name, type: 'organizations' } } },
    links: { self: `${BASE}/projects/${id}` },
  };
}

/** The edition's flags as the hosted service answers them, and its limits (null: none). */
export function entitlementResource(org: OrgRecord): Record<string, unknown> {
  return {
    id: `org-${org.name}`,
    type: 'entitlement-sets',
    attributes: {
      agents: true,
      sentinel: true,
      'policy-set-limit': org.entitlements.policySetLimit,
      'policy-limit': org.entitlements.policyLimit,
      'versioned-policy-set-limit': org.entitlements.versionedPolicySetLimit,
    },
    links: { self: `${BASE}/entitlement-sets/org-${org.name}` },
  };
}
