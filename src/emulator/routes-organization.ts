/**
 * An organization's workspaces, projects and entitlement set, from the seed (docs/api-behaviour.md, Workspaces,
 * projects and the edition's limits). Workspaces: `search[name]` (a part of the name, any case) and
 * `search[wildcard-name]` (`*` as prefix, suffix or both; without one, the whole name), 100 a page at most. Projects:
 * `filter[names]` (whole names, comma-separated, any case) and `q` (a part of the name).
 */
import { badRequest, type Reply } from './http.js';
import { requireOrg } from './lookups.js';
import { paginate } from './pagination.js';
import { entitlementResource, projectResource, workspaceResource } from './policy-set-documents.js';
import type { Context, Route } from './router.js';
import type { OrgRecord } from './store.js';

export const organizationRoutes: Route[] = [
  { method: 'GET', pattern: '/organizations/:org/workspaces', handler: listWorkspaces },
  { method: 'GET', pattern: '/organizations/:org/projects', handler: listProjects },
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
