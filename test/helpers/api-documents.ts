import assert from 'node:assert/strict';

/** Checks of raw JSON:API documents against every documented field (docs/api-behaviour.md), so a dropped field fails a test. */

export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The value at a dotted path (`attributes.name`); keys may contain `-`. */
export function at(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function has(value: unknown, path: string): boolean {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  const parent = parts.length === 0 ? value : at(value, parts.join('.'));
  return typeof parent === 'object' && parent !== null && Object.hasOwn(parent, last);
}

export interface ExpectedPolicy {
  name: string;
  description: string | null;
  kind: 'native' | 'opa';
  query: string | null;
  level: string;
  policySetIds: string[];
  organization: string;
  uploaded: boolean;
  /** false for the creation response, which has no `links.download`. */
  hasDownload: boolean;
}

export function assertPolicyResource(resource: unknown, expected: ExpectedPolicy): void {
  const id = at(resource, 'id');
  assert.match(String(id), /^pol-\w+/);
  assert.equal(at(resource, 'type'), 'policies');
  assert.equal(at(resource, 'attributes.name'), expected.name);
  assert.ok(has(resource, 'attributes.description'), 'attributes.description present');
  assert.equal(at(resource, 'attributes.description'), expected.description);
  assert.equal(at(resource, 'attributes.kind'), expected.kind);
  if (expected.kind === 'opa') assert.equal(at(resource, 'attributes.query'), expected.query);
  else assert.ok(at(resource, 'attributes.query') == null, 'no query on a native policy');
  assert.equal(at(resource, 'attributes.enforcement-level'), expected.level);
  const extension = expected.kind === 'opa' ? 'rego' : 'native';
  // The deprecated enforce array is empty until code is uploaded.
  const enforce = expected.uploaded ? [{ path: `${expected.name}.${extension}`, mode: expected.level }] : [];
  assert.deepEqual(at(resource, 'attributes.enforce'), enforce);
  assert.equal(at(resource, 'attributes.policy-set-count'), expected.policySetIds.length);
  assert.ok(has(resource, 'attributes.updated-at'), 'attributes.updated-at present');
  if (expected.uploaded) assert.match(String(at(resource, 'attributes.updated-at')), TIMESTAMP);
  else assert.equal(at(resource, 'attributes.updated-at'), null);
  assert.deepEqual(at(resource, 'relationships.organization.data'), { id: expected.organization, type: 'organizations' });
  const sets = at(resource, 'relationships.policy-sets.data');
  if (expected.policySetIds.length > 0 || sets !== undefined) {
    assert.deepEqual(sets, expected.policySetIds.map((setId) => ({ id: setId, type: 'policy-sets' })));
  }
  assert.equal(at(resource, 'links.self'), `/api/v2/policies/${String(id)}`);
  assert.equal(at(resource, 'links.upload'), `/api/v2/policies/${String(id)}/upload`);
  if (expected.hasDownload) assert.equal(at(resource, 'links.download'), `/api/v2/policies/${String(id)}/download`);
  else assert.equal(at(resource, 'links.download'), undefined);
}

export interface ExpectedPool {
  name: string;
  organizationScoped: boolean;
  allowedWorkspaceIds: string[];
  /** Checked when given (list responses carry it). */
  agentCount?: number;
}

export function assertPoolResource(resource: unknown, expected: ExpectedPool): void {
  const id = String(at(resource, 'id'));
  assert.match(id, /^apool-\w+/);
  assert.equal(at(resource, 'type'), 'agent-pools');
  assert.equal(at(resource, 'attributes.name'), expected.name);
  assert.match(String(at(resource, 'attributes.created-at')), TIMESTAMP);
  assert.equal(at(resource, 'attributes.organization-scoped'), expected.organizationScoped);
  if (expected.agentCount !== undefined) assert.equal(at(resource, 'attributes.agent-count'), expected.agentCount);
  assert.equal(at(resource, 'relationships.agents.links.related'), `/api/v2/agent-pools/${id}/agents`);
  assert.equal(at(resource, 'relationships.authentication-tokens.links.related'), `/api/v2/agent-pools/${id}/authentication-tokens`);
  const workspaces = at(resource, 'relationships.workspaces.data');
  assert.ok(Array.isArray(workspaces), 'relationships.workspaces.data is an array');
  for (const ws of workspaces) assert.equal(at(ws, 'type'), 'workspaces');
  const allowed = at(resource, 'relationships.allowed-workspaces.data');
  assert.deepEqual(allowed, expected.allowedWorkspaceIds.map((wsId) => ({ id: wsId, type: 'workspaces' })));
  assert.deepEqual(at(resource, 'relationships.allowed-projects.data'), []);
  assert.deepEqual(at(resource, 'relationships.excluded-workspaces.data'), []);
  assert.equal(at(resource, 'links.self'), `/api/v2/agent-pools/${id}`);
}

export interface ExpectedAgent {
  name: string | null;
  status: string;
  ipAddress: string;
  lastPingAt: string;
}

export function assertAgentResource(resource: unknown, expected: ExpectedAgent): void {
  const id = String(at(resource, 'id'));
  assert.match(id, /^agent-\w+/);
  assert.equal(at(resource, 'type'), 'agents');
  assert.equal(at(resource, 'attributes.name'), expected.name);
  assert.equal(at(resource, 'attributes.status'), expected.status);
  assert.equal(at(resource, 'attributes.ip-address'), expected.ipAddress);
  assert.equal(at(resource, 'attributes.last-ping-at'), expected.lastPingAt);
  assert.match(String(at(resource, 'attributes.created-at')), TIMESTAMP);
  assert.ok(String(at(resource, 'attributes.created-at')) <= expected.lastPingAt, 'created no later than its last ping');
  assert.equal(at(resource, 'links.self'), `/api/v2/agents/${id}`);
}

export function assertListEnvelope(document: unknown, page: { current: number; total: number; count: number }): void {
  for (const name of ['self', 'first', 'last']) {
    const link = String(at(document, `links.${name}`));
    assert.match(link, /^https?:\/\/.+page%5Bnumber%5D=\d+/, `links.${name} is absolute and percent-encoded`);
    assert.match(link, /page%5Bsize%5D=\d+/);
  }
  assert.ok(has(document, 'links.prev') && has(document, 'links.next'), 'links.prev and links.next present');
  assert.equal(at(document, 'links.prev') === null, page.current === 1);
  assert.equal(at(document, 'links.next') === null, page.current === page.total);
  assert.equal(at(document, 'meta.pagination.current-page'), page.current);
  const size = at(document, 'meta.pagination.page-size');
  assert.ok(Number.isInteger(size) && Number(size) >= 1 && Number(size) <= 100, `meta.pagination.page-size ${String(size)}`);
  assert.equal(at(document, 'meta.pagination.prev-page'), page.current === 1 ? null : page.current - 1);
  assert.equal(at(document, 'meta.pagination.next-page'), page.current === page.total ? null : page.current + 1);
  assert.equal(at(document, 'meta.pagination.total-pages'), page.total);
  assert.equal(at(document, 'meta.pagination.total-count'), page.count);
}

/** An error document: `{"errors":[...]}` with at least one entry. */
export function assertErrorDocument(document: unknown): void {
  const errors = at(document, 'errors');
  assert.ok(Array.isArray(errors) && errors.length > 0, 'error document has errors');
}
