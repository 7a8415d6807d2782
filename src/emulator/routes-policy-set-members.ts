/**
 * A policy set's relationships, changed as the hosted service does it (docs/api-behaviour.md, Policy set
 * relationships): `POST /policy-sets/:id/relationships/<name>` adds the members named, `DELETE` removes them; both
 * answer 204. An unknown set is a 404; a member that does not exist in the set's organization is a 422, and then nothing
 * changes. Only `type` and `id` are read from each item. Policies join only a set without versions or a VCS repository,
 * and workspaces and projects only a set that is not global.
 */
import { invalid, isObject, JSON_API, notFound, readJsonBody, type Reply } from './http.js';
import { isVersioned, setPolicyIds } from './policy-set-documents.js';
import { checkGlobalScope, checkTagScope, overLimit, readTagSelectors } from './policy-set-input.js';
import type { Context, Route } from './router.js';
import type { OrgRecord, PolicySetRecord } from './store.js';
import type { TagSelector } from '../model.js';
import { requireSet } from './routes-policy-sets.js';

type Relationship = 'policies' | 'workspaces' | 'projects' | 'workspace-exclusions' | 'project-exclusions';
const RELATIONSHIPS: readonly Relationship[] = ['policies', 'workspaces', 'projects', 'workspace-exclusions', 'project-exclusions'];
const ITEM_TYPES: Readonly<Record<Relationship, string>> = {
  policies: 'policies',
  workspaces: 'workspaces',
  projects: 'projects',
  'workspace-exclusions': 'workspaces',
  'project-exclusions': 'projects',
};

export const policySetMemberRoutes: Route[] = [
  ...RELATIONSHIPS.flatMap((name) => [
    { method: 'POST', pattern: `/policy-sets/:id/relationships/${name}`, handler: (ctx: Context) => changeMembers(ctx, name, 'add') },
    { method: 'DELETE', pattern: `/policy-sets/:id/relationships/${name}`, handler: (ctx: Context) => changeMembers(ctx, name, 'remove') },
  ]),
  { method: 'POST', pattern: '/policy-sets/:id/tag-selectors', handler: (ctx: Context) => changeTagSelectors(ctx, 'add') },
  { method: 'DELETE', pattern: '/policy-sets/:id/tag-selectors', handler: (ctx: Context) => changeTagSelectors(ctx, 'remove') },
];

/**
 * go-tfe's `AddTagSelectors` / `RemoveTagSelectors`: `{"data": [selector, …]}`, at least one; answers 204. A set with
 * inclusion selectors is scoped by tags (`scoping-type` `tag`), and `explicit` again once it has none.
 */
async function changeTagSelectors(ctx: Context, change: 'add' | 'remove'): Promise<Reply> {
  const set = requireSet(ctx.store, ctx.params.id);
  const body = await readJsonBody(ctx.req, JSON_API);
  const given = readTagSelectors(isObject(body) ? body.data : undefined, '/data') ?? [];
  if (given.length === 0) throw invalid('at least one tag selector is required', '/data');
  const same = (a: TagSelector, b: TagSelector) => a.key === b.key && a.value === b.value && a.exclude === b.exclude;
  const next = change === 'add'
    ? [...set.tagSelectors, ...given.filter((s) => !set.tagSelectors.some((t) => same(s, t)))]
    : set.tagSelectors.filter((t) => !given.some((s) => same(s, t)));
  checkTagScope(next, set.workspaceIds.length + set.projectIds.length);
  set.tagSelectors = next;
  set.scopingType = next.some((s) => !s.exclude) ? 'tag' : 'explicit';
  set.updatedAt = new Date(ctx.now()).toISOString();
  return { status: 204 };
}

async function changeMembers(ctx: Context, name: Relationship, change: 'add' | 'remove'): Promise<Reply> {
  if (name === 'policies') return changePolicies(ctx, change);
  const set = requireSet(ctx.store, ctx.params.id);
  const org = ctx.store.orgs.get(set.org);
  if (org === undefined) throw notFound();
  const ids = readItems(await readJsonBody(ctx.req, JSON_API), ITEM_TYPES[name], (id) => exists(org, name, id));
  const key = LISTS[name];
  if (change === 'add') {
    const next = [...set[key], ...ids.filter((id) => !set[key].includes(id))];
    if (name === 'workspaces' || name === 'projects') {
      checkGlobalScope(set.global, next.length);
      checkTagScope(set.tagSelectors, next.length);
    }
    set[key] = next;
  } else {
    set[key] = set[key].filter((id) => !ids.includes(id));
  }
  set.updatedAt = new Date(ctx.now()).toISOString();
  return { status: 204 };
}

const LISTS = {
  workspaces: 'workspaceIds',
  projects: 'projectIds',
  'workspace-exclusions': 'workspaceExclusionIds',
  'project-exclusions': 'projectExclusionIds',
} as const satisfies Record<Exclude<Relationship, 'policies'>, keyof PolicySetRecord>;

function exists(org: OrgRecord, name: Relationship, id: string): boolean {
  return ITEM_TYPES[name] === 'workspaces' ? org.workspaces.has(id) : org.projects.has(id);
}

/**
 * Seeds may give two organizations a set of the same id: a policy joins the one of its own organization. A set with
 * versions or a VCS repository takes its policies from them, never by relationship (422).
 */
async function changePolicies(ctx: Context, change: 'add' | 'remove'): Promise<Reply> {
  const setId = ctx.params.id ?? '';
  const sets = [...ctx.store.orgs.values()].flatMap((org) => org.policySets.get(setId) ?? []);
  if (sets.length === 0) throw notFound();
  const inOrg = (id: string): boolean => sets.some((set) => set.org === ctx.store.policies.get(id)?.org);
  const ids = readItems(await readJsonBody(ctx.req, JSON_API), 'policies', inOrg);
  const policies = ids.map((id) => ctx.store.policies.get(id)).filter((policy) => policy !== undefined);
  if (change === 'add') {
    for (const set of sets) {
      const joining = policies.filter((policy) => policy.org === set.org && !policy.policySetIds.includes(setId));
      if (joining.length === 0) continue;
      if (isVersioned(set)) throw invalid('Policies cannot be added to a versioned policy set', '/data');
      const limit = ctx.store.orgs.get(set.org)?.entitlements.policyLimit ?? null;
      if (limit !== null && setPolicyIds(ctx.store, set).length + joining.length > limit) throw overLimit('Policy', limit);
    }
  }
  for (const policy of policies) {
    const has = policy.policySetIds.includes(setId);
    if (change === 'add' && !has) policy.policySetIds.push(setId);
    if (change === 'remove' && has) policy.policySetIds = policy.policySetIds.filter((id) => id !== setId);
  }
  return { status: 204 };
}

const SINGULAR: Record<string, string> = { policies: 'policy', workspaces: 'workspace', projects: 'project' };

/** `{"data":[{"type":…,"id":…}]}`: every item of `type` and accepted by `exists`, or nothing changes. Other members are ignored. */
function readItems(body: unknown, type: string, exists: (id: string) => boolean): string[] {
  if (!isObject(body) || !Array.isArray(body.data)) throw invalid(`data must be an array of ${type}`, '/data');
  return body.data.map((item: unknown, i: number) => {
    const pointer = `/data/${i}`;
    if (!isObject(item) || typeof item.id !== 'string' || item.type !== type) throw invalid(`each element needs an id and type ${type}`, pointer);
    if (!exists(item.id)) throw invalid(`${SINGULAR[type] ?? type} ${item.id} not found`, pointer);
    return item.id;
  });
}
