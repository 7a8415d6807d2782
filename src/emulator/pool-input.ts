/** Validation of agent pool create and update bodies. */
import { invalid } from './http.js';
import type { OrgRecord } from './store.js';
import { checkName, optionalBoolean, readDocument, relationshipIds } from './validate.js';

export interface PoolChanges {
  name?: string;
  organizationScoped?: boolean;
  allowedWorkspaceIds?: string[];
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
  return changes;
}
