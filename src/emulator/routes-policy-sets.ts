/**
 * Policy sets: list, create, show, update, delete (docs/api-behaviour.md, Policy sets). Their relationships are in
 * routes-policy-set-members.ts, versions in routes-policy-set-versions.ts, parameters in routes-parameters.ts.
 */
import { badRequest, invalid, JSON_API, notFound, readJsonBody, type Reply } from './http.js';
import { newId } from './ids.js';
import { requireOrg } from './lookups.js';
import { paginate } from './pagination.js';
import { isVersioned, newestVersionId, policySetResource, projectResource, versionResource, workspaceResource } from './policy-set-documents.js';
import { overLimit, parseSetCreate, parseSetUpdate, setKind } from './policy-set-input.js';
import type { Context, Route } from './router.js';
import { findPolicySet, policiesOf, type PolicySetRecord, type Store } from './store.js';

export const policySetRoutes: Route[] = [
  { method: 'GET', pattern: '/organizations/:org/policy-sets', handler: listSets },
  { method: 'POST', pattern: '/organizations/:org/policy-sets', handler: createSet },
  { method: 'GET', pattern: '/policy-sets/:id', handler: showSet },
  { method: 'PATCH', pattern: '/policy-sets/:id', handler: updateSet },
  { method: 'DELETE', pattern: '/policy-sets/:id', handler: deleteSet },
];

export function requireSet(store: Store, id: string | undefined): PolicySetRecord {
  const set = id === undefined ? undefined : findPolicySet(store, id);
  if (set === undefined) throw notFound();
  return set;
}

const INCLUDES = ['policies', 'workspaces', 'projects', 'workspace_exclusions', 'project_exclusions', 'current_version', 'newest_version'] as const;
type Include = (typeof INCLUDES)[number];

/** `include` tokens, with `_` or `-` alike; one the service does not know is a 400, as it answers. */
function readIncludes(query: URLSearchParams): Set<Include> {
  const tokens = (query.get('include') ?? '').split(',').map((token) => token.trim().replaceAll('-', '_')).filter((token) => token !== '');
  for (const token of tokens) if (!(INCLUDES as readonly string[]).includes(token)) throw badRequest(`Invalid include parameter: ${token}`);
  return new Set(tokens as Include[]);
}

/** The `included` resources a list or show asked for, each once. */
function included(store: Store, sets: readonly PolicySetRecord[], asked: Set<Include>): Record<string, unknown>[] {
  const out = new Map<string, Record<string, unknown>>();
  const add = (resource: Record<string, unknown>): void => void out.set(`${String(resource.type)}/${String(resource.id)}`, resource);
  for (const set of sets) {
    const org = store.orgs.get(set.org);
    if (org === undefined) continue;
    if (asked.has('policies')) {
      for (const policy of policiesOf(store, set.org)) if (policy.policySetIds.includes(set.id)) add({ id: policy.id, type: 'policies', attributes: { name: policy.name } });
    }
    const workspaces = [...(asked.has('workspaces') ? set.workspaceIds : []), ...(asked.has('workspace_exclusions') ? set.workspaceExclusionIds : [])];
    for (const id of workspaces) add(workspaceResource(org, id, org.workspaces.get(id) ?? ''));
    const projects = [...(asked.has('projects') ? set.projectIds : []), ...(asked.has('project_exclusions') ? set.projectExclusionIds : [])];
    for (const id of projects) add(projectResource(org, id, org.projects.get(id) ?? ''));
    const versions = [asked.has('current_version') ? set.currentVersionId : null, asked.has('newest_version') ? newestVersionId(set) : null];
    for (const id of versions) {
      const version = id === null ? undefined : store.versions.get(id);
      if (version !== undefined) add(versionResource(version, null));
    }
  }
  return [...out.values()];
}

function listSets(ctx: Context): Reply {
  const org = requireOrg(ctx.store, ctx.params.org);
  const asked = readIncludes(ctx.query);
  const search = ctx.query.get('search[name]')?.toLowerCase() ?? '';
  const kind = ctx.query.get('filter[kind]') ?? '';
  const versioned = ctx.query.get('filter[versioned]') ?? '';
  if (versioned !== '' && versioned !== 'true' && versioned !== 'false') throw badRequest('filter[versioned] must be true or false');
  const kindFilter = kind === '' ? null : setKind(kind, ctx.behaviour);
  const matching = [...org.policySets.values()].filter((set) =>
    set.name.toLowerCase().includes(search) &&
    (kindFilter === null || set.kind === kindFilter) &&
    (versioned === '' || String(isVersioned(set)) === versioned));
  const page = paginate(matching, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const body: Record<string, unknown> = {
    data: page.items.map((set) => policySetResource(ctx.store, set, ctx.behaviour.nativeKind)),
    links: page.links,
    meta: { pagination: page.pagination },
  };
  if (asked.size > 0) body.included = included(ctx.store, page.items, asked);
  return { status: 200, body };
}

function showSet(ctx: Context): Reply {
  const set = requireSet(ctx.store, ctx.params.id);
  const asked = readIncludes(ctx.query);
  const body: Record<string, unknown> = { data: policySetResource(ctx.store, set, ctx.behaviour.nativeKind) };
  if (asked.size > 0) body.included = included(ctx.store, [set], asked);
  return { status: 200, body };
}

async function createSet(ctx: Context): Promise<Reply> {
  const org = requireOrg(ctx.store, ctx.params.org);
  const body = await readJsonBody(ctx.req, JSON_API);
  const policyExists = (id: string): boolean => ctx.store.policies.get(id)?.org === org.name;
  const input = parseSetCreate(body, org, policyExists, ctx.behaviour);
  const limits = org.entitlements;
  if (limits.policySetLimit !== null && org.policySets.size >= limits.policySetLimit) throw overLimit('Policy set', limits.policySetLimit);
  if (limits.policyLimit !== null && input.policyIds.length > limits.policyLimit) throw overLimit('Policy', limits.policyLimit);
  const at = new Date(ctx.now()).toISOString();
  const { policyIds, ...settings } = input;
  const set: PolicySetRecord = { id: newId('polset'), org: org.name, ...settings, versionIds: [], currentVersionId: null, createdAt: at, updatedAt: at, parameters: new Map() };
  org.policySets.set(set.id, set);
  for (const id of policyIds) ctx.store.policies.get(id)?.policySetIds.push(set.id);
  return { status: 201, body: { data: policySetResource(ctx.store, set, ctx.behaviour.nativeKind) } };
}

async function updateSet(ctx: Context): Promise<Reply> {
  const set = requireSet(ctx.store, ctx.params.id);
  const org = requireOrg(ctx.store, set.org);
  const update = parseSetUpdate(await readJsonBody(ctx.req, JSON_API), set, org, ctx.behaviour);
  if (update.vcsRepo !== undefined && update.vcsRepo !== null && policiesOf(ctx.store, set.org).some((policy) => policy.policySetIds.includes(set.id))) {
    throw invalid('A policy set with individual policies cannot take a VCS repository', '/data/attributes/vcs-repo');
  }
  Object.assign(set, update, { updatedAt: new Date(ctx.now()).toISOString() });
  return { status: 200, body: { data: policySetResource(ctx.store, set, ctx.behaviour.nativeKind) } };
}

/** The set goes with its versions and parameters; its policies stay, in no set. */
function deleteSet(ctx: Context): Reply {
  const set = requireSet(ctx.store, ctx.params.id);
  for (const policy of policiesOf(ctx.store, set.org)) policy.policySetIds = policy.policySetIds.filter((id) => id !== set.id);
  for (const id of set.versionIds) ctx.store.versions.delete(id);
  ctx.store.orgs.get(set.org)?.policySets.delete(set.id);
  return { status: 204 };
}
