/** Agent pools: list, create, show, update, delete. */
import { includedWorkspaces, poolResource } from './documents.js';
import { JSON_API, ReplyError, readJsonBody, type Reply } from './http.js';
import { newId } from './ids.js';
import { includes, requireOrg, requirePool } from './lookups.js';
import { paginate } from './pagination.js';
import { parsePoolInput } from './pool-input.js';
import type { Context, Route } from './router.js';
import { addPool, poolsOf, removePool, type PoolRecord, type Store } from './store.js';
import { byCodeUnit } from '../order.js';

export const poolRoutes: Route[] = [
  { method: 'GET', pattern: '/organizations/:org/agent-pools', handler: listPools },
  { method: 'POST', pattern: '/organizations/:org/agent-pools', handler: createPool },
  { method: 'GET', pattern: '/agent-pools/:id', handler: showPool },
  { method: 'PATCH', pattern: '/agent-pools/:id', handler: updatePool },
  { method: 'DELETE', pattern: '/agent-pools/:id', handler: deletePool },
];

function listPools(ctx: Context): Reply {
  const org = requireOrg(ctx.store, ctx.params.org);
  const all = poolsOf(ctx.store, org.name);
  const q = ctx.query.get('q')?.toLowerCase();
  const workspaceName = ctx.query.get('filter[allowed_workspaces][name]');
  const projectName = ctx.query.get('filter[allowed_projects][name]');
  const matching = sortPools(
    all.filter(
      (pool) =>
        (q === undefined || pool.name.toLowerCase().includes(q)) &&
        (workspaceName === null || allowsWorkspaceNamed(ctx.store, pool, workspaceName)) &&
        (projectName === null || allowsProjectNamed(ctx.store, pool, projectName)),
    ),
    ctx.query.get('sort'),
  );
  const page = paginate(matching, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const body: Record<string, unknown> = {
    data: page.items.map((pool) => poolResource(ctx.store, pool)),
    links: page.links,
    meta: { pagination: page.pagination, 'status-counts': { total: all.length, matching: matching.length } },
  };
  if (includes(ctx.query, 'workspaces')) body.included = includedWorkspaces(ctx.store, page.items);
  return { status: 200, body };
}

/** An organization-scoped pool allows every workspace of its organization. */
function allowsWorkspaceNamed(store: Store, pool: PoolRecord, name: string): boolean {
  const workspaces = store.orgs.get(pool.org)?.workspaces ?? new Map<string, string>();
  const ids = [...workspaces].filter(([, wsName]) => wsName === name).map(([id]) => id);
  if (ids.length === 0) return false;
  return pool.organizationScoped || ids.some((id) => pool.allowedWorkspaceIds.includes(id));
}

/** The same for projects: an organization-scoped pool, or one whose `allowed-projects` holds a project of that name. */
function allowsProjectNamed(store: Store, pool: PoolRecord, name: string): boolean {
  const projects = store.orgs.get(pool.org)?.projects ?? new Map<string, string>();
  const ids = [...projects].filter(([, projectName]) => projectName === name).map(([id]) => id);
  if (ids.length === 0) return false;
  return pool.organizationScoped || ids.some((id) => pool.allowedProjectIds.includes(id));
}

function sortPools(pools: PoolRecord[], sort: string | null): PoolRecord[] {
  if (sort === null || sort === '') return pools;
  const descending = sort.startsWith('-');
  const key = descending ? sort.slice(1) : sort;
  if (key !== 'name' && key !== 'created-at') {
    throw new ReplyError(400, [{ status: '400', title: 'bad request', detail: 'sort must be name or created-at, optionally with a leading -' }]);
  }
  const field = (pool: PoolRecord): string => (key === 'name' ? pool.name : pool.createdAt);
  const sorted = [...pools].sort((a, b) => byCodeUnit(field(a), field(b)));
  return descending ? sorted.reverse() : sorted;
}

function showReply(ctx: Context, pool: PoolRecord, status: number): Reply {
  const body: Record<string, unknown> = { data: poolResource(ctx.store, pool) };
  if (includes(ctx.query, 'workspaces')) body.included = includedWorkspaces(ctx.store, [pool]);
  return { status, body };
}

async function createPool(ctx: Context): Promise<Reply> {
  const org = requireOrg(ctx.store, ctx.params.org);
  const body = await readJsonBody(ctx.req, JSON_API);
  const existing = poolsOf(ctx.store, org.name);
  const changes = parsePoolInput(body, org, (name) => existing.some((pool) => pool.name === name), true, true);
  if (existing.length >= org.maxAgentPools) {
    throw new ReplyError(422, [
      { status: '422', title: 'invalid attribute', detail: `Organization has reached its limit of ${org.maxAgentPools} agent pools`, source: { pointer: '/data' } },
    ]);
  }
  const pool: PoolRecord = {
    id: newId('apool'),
    org: org.name,
    name: changes.name ?? '',
    createdAt: new Date(ctx.now()).toISOString(),
    organizationScoped: changes.organizationScoped ?? true,
    allowedWorkspaceIds: changes.allowedWorkspaceIds ?? [],
    allowedProjectIds: changes.allowedProjectIds ?? [],
    excludedWorkspaceIds: changes.excludedWorkspaceIds ?? [],
    workspaceIds: [],
  };
  addPool(ctx.store, pool);
  return showReply(ctx, pool, 201);
}

function showPool(ctx: Context): Reply {
  return showReply(ctx, requirePool(ctx.store, ctx.params.id), 200);
}

async function updatePool(ctx: Context): Promise<Reply> {
  const pool = requirePool(ctx.store, ctx.params.id);
  const org = requireOrg(ctx.store, pool.org);
  const body = await readJsonBody(ctx.req, JSON_API);
  const others = poolsOf(ctx.store, org.name).filter((other) => other.id !== pool.id);
  // The PATCH table documents organization-scoped as "Default: true": leaving it out opens the pool.
  const scopeDefault = ctx.behaviour.poolPatchResetsScope ? true : undefined;
  const changes = parsePoolInput(body, org, (name) => others.some((other) => other.name === name), false, scopeDefault);
  if (changes.name !== undefined) pool.name = changes.name;
  if (changes.organizationScoped !== undefined) pool.organizationScoped = changes.organizationScoped;
  if (changes.allowedWorkspaceIds !== undefined) pool.allowedWorkspaceIds = changes.allowedWorkspaceIds;
  if (changes.allowedProjectIds !== undefined) pool.allowedProjectIds = changes.allowedProjectIds;
  if (changes.excludedWorkspaceIds !== undefined) pool.excludedWorkspaceIds = changes.excludedWorkspaceIds;
  return showReply(ctx, pool, 200);
}

function deletePool(ctx: Context): Reply {
  const pool = requirePool(ctx.store, ctx.params.id);
  if (pool.workspaceIds.length > 0) {
    throw new ReplyError(422, [
      { status: '422', title: 'invalid attribute', detail: `Agent pool is still being used by workspaces: ${pool.workspaceIds.join(', ')}`, source: { pointer: '/data' } },
    ]);
  }
  removePool(ctx.store, pool);
  return { status: 204 };
}
