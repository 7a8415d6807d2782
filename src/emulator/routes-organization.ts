/**
 * An organization's workspaces, projects and entitlement set, from the seed (docs/api-behaviour.md, Workspaces,
 * projects and the edition's limits). Workspaces: `search[name]` (a part of the name, any case) and
 * `search[wildcard-name]` (`*` as prefix, suffix or both; without one, the whole name), 100 a page at most. Projects:
 * `filter[names]` (whole names, comma-separated, any case) and `q` (a part of the name).
 */
import { badRequest, invalid, isObject, JSON_API, notFound, readJsonBody, type Reply } from './http.js';
import { requireOrg } from './lookups.js';
import { paginate } from './pagination.js';
import { entitlementResource, projectResource, workspaceResource } from './policy-set-documents.js';
import type { Context, Route } from './router.js';
import type { OrgRecord } from './store.js';

export const organizationRoutes: Route[] = [
  { method: 'GET', pattern: '/organizations/:org/workspaces', handler: listWorkspaces },
  { method: 'GET', pattern: '/organizations/:org/projects', handler: listProjects },
  { method: 'PATCH', pattern: '/workspaces/:id/tag-bindings', handler: addTagBindings },
  { method: 'GET', pattern: '/organizations/:org/entitlement-set', handler: (ctx) => ({ status: 200, body: { data: entitlementResource(requireOrg(ctx.store, ctx.params.org)) } }) },
];

/** `*app`, `app*`, `*app*` or `app`, compared in any case. */
export function wildcardMatches(pattern: string, name: string): boolean {
  const lower = name.toLowerCase();
  const core = pattern.replace(/^\*/, '').replace(/\*$/, '').toLowerCase();
  if (core.includes('*')) throw badRequest('search[wildcard-name] takes * only as a prefix, a suffix or both');
  const prefix = pattern.startsWith('*');
  const suffix = pattern.length > 1 && pattern.endsWith('*');
  if (prefix && suffix) return lower.includes(core);
  if (prefix) return lower.endsWith(core);
  if (suffix) return lower.startsWith(core);
  return lower === core;
}

function listWorkspaces(ctx: Context): Reply {
  const org = requireOrg(ctx.store, ctx.params.org);
  const search = ctx.query.get('search[name]')?.toLowerCase() ?? '';
  const wildcard = ctx.query.get('search[wildcard-name]') ?? '';
  const matching = [...org.workspaces].filter(([, name]) => name.toLowerCase().includes(search) && (wildcard === '' || wildcardMatches(wildcard, name)));
  const page = paginate(matching, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  // `include=effective_tag_bindings` (go-tfe's `WSEffectiveTagBindings`): each workspace's tags, key and value.
  const withTags = (ctx.query.get('include') ?? '').split(',').map((t) => t.trim().replaceAll('-', '_')).includes('effective_tag_bindings');
  const data = page.items.map(([id, name]) => (withTags ? { ...workspaceResource(org, id, name), ...tagRelationship(org, id) } : workspaceResource(org, id, name)));
  const included = withTags ? page.items.flatMap(([id]) => tagBindings(org, id)) : [];
  return { status: 200, body: { data, links: page.links, meta: { pagination: page.pagination }, ...(withTags ? { included } : {}) } };
}

/**
 * go-tfe's `Workspaces.AddTagBindings`: `{"data": [{"type": "tag-bindings", "attributes": {"key", "value"}}]}` adds
 * tags, or gives a key already there the value sent; answers the workspace's bindings. What tests and the scaffold of
 * go-tfe's tests tag workspaces with (the seed's `tags:` otherwise).
 */
async function addTagBindings(ctx: Context): Promise<Reply> {
  const id = ctx.params.id ?? '';
  const org = [...ctx.store.orgs.values()].find((o) => o.workspaces.has(id));
  if (org === undefined) throw notFound();
  const body = await readJsonBody(ctx.req, JSON_API);
  const data = isObject(body) ? body.data : undefined;
  if (!Array.isArray(data) || data.length === 0) throw invalid('at least one tag binding is required', '/data');
  const tags = [...(org.workspaceTags.get(id) ?? [])];
  for (const [index, entry] of data.entries()) {
    const attributes = isObject(entry) && isObject(entry.attributes) ? entry.attributes : {};
    const { key, value } = attributes;
    if (typeof key !== 'string' || key === '' || (value !== undefined && value !== null && typeof value !== 'string')) throw invalid('a tag binding is {"key": KEY, "value": VALUE}', `/data/${index}`);
    const tag = { key, value: typeof value === 'string' && value !== '' ? value : null };
    const at = tags.findIndex((t) => t.key === key);
    if (at >= 0) tags[at] = tag;
    else tags.push(tag);
  }
  org.workspaceTags.set(id, tags);
  const bindings = tags.map((tag, index) => ({ id: `tb-${id.slice(3)}${index}`, type: 'tag-bindings', attributes: { key: tag.key, value: tag.value ?? '' } }));
  return { status: 200, body: { data: bindings } };
}

function tagBindings(org: OrgRecord, workspaceId: string): Array<Record<string, unknown>> {
  return (org.workspaceTags.get(workspaceId) ?? []).map((tag, index) => ({
    id: `etb-${workspaceId.slice(3)}${index}`,
    type: 'effective-tag-bindings',
    attributes: { key: tag.key, value: tag.value ?? '' },
  }));
}

function tagRelationship(org: OrgRecord, workspaceId: string): Record<string, unknown> {
  const resource = workspaceResource(org, workspaceId, '') as { relationships: Record<string, unknown> };
  const data = tagBindings(org, workspaceId).map(({ id, type }) => ({ id, type }));
  return { relationships: { ...resource.relationships, 'effective-tag-bindings': { data } } };
}

function listProjects(ctx: Context): Reply {
  const org = requireOrg(ctx.store, ctx.params.org);
  const names = (ctx.query.get('filter[names]') ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
  const q = ctx.query.get('q')?.toLowerCase() ?? '';
  const matching = [...org.projects].filter(([, name]) => (names.length === 0 || names.includes(name.toLowerCase())) && name.toLowerCase().includes(q));
  const page = paginate(matching, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const data = page.items.map(([id, name]) => projectResource(org, id, name));
  return { status: 200, body: { data, links: page.links, meta: { pagination: page.pagination } } };
}
