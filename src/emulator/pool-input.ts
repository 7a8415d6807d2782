/** Validation of agent pool create and update bodies. */
import { invalid } from './http.js';
import type { OrgRecord } from './store.js';
import { checkName, optionalBoolean, readDocument, relationshipIds } from './validate.js';

export interface PoolChanges {
  name?: string;
  organizationScoped?: boolean;
  allowedWorkspaceIds?: string[];
  allowedProjectIds?: string[];
  excludedWorkspaceIds?: string[];
}

/**
 * `nameTaken` must ignore the pool being updated. `scopeDefault`: the value an absent
 * `organization-scoped` takes (true on create; on update too when the documented PATCH default applies).
 */
export function parsePoolInput(
  body: unknown,
  org: OrgRecord,
  nameTaken: (name: string) => boolean,
  creating: boolean,
  scopeDefault: boolean | undefined,
): PoolChanges {
  const { attributes, relationships } = readDocument(body, 'agent-pools');
  const changes: PoolChanges = {};
  if (creating || attributes.name !== undefined) {
    const name = checkName(attributes.name);
    if (nameTaken(name)) throw invalid('Name has already been taken', '/data/attributes/name');
    changes.name = name;
  }
  const scoped = optionalBoolean(attributes, 'organization-scoped') ?? scopeDefault;
  if (scoped !== undefined) changes.organizationScoped = scoped;
  const allowed = relationshipIds(relationships, 'allowed-workspaces', 'workspaces', (id) => org.workspaces.has(id));
  if (allowed !== undefined) changes.allowedWorkspaceIds = allowed;
  // Projects are not seeded: any `prj-` id is taken. A PATCH without these lists keeps them, as the service does.
  const projects = relationshipIds(relationships, 'allowed-projects', 'projects', (id) => /^prj-[A-Za-z0-9_-]+$/.test(id));
  if (projects !== undefined) changes.allowedProjectIds = projects;
  const excluded = relationshipIds(relationships, 'excluded-workspaces', 'workspaces', (id) => org.workspaces.has(id));
  if (excluded !== undefined) changes.excludedWorkspaceIds = excluded;
  return changes;
}
