/** Policy records: list, create, show, update, delete. */
import { includedPolicySets, policyResource } from './documents.js';
import { JSON_API, ReplyError, readJsonBody, type Reply } from './http.js';
import { newId } from './ids.js';
import { includes, requireOrg, requirePolicy } from './lookups.js';
import { paginate } from './pagination.js';
import { kindWord } from './records.js';
import { parsePolicyCreate, parsePolicyUpdate } from './policy-input.js';
import type { Context, Route } from './router.js';
import { addPolicy, policiesOf, policyNamed, removePolicy, type PolicyRecord } from './store.js';

export const policyRoutes: Route[] = [
  { method: 'GET', pattern: '/organizations/:org/policies', handler: listPolicies },
  { method: 'POST', pattern: '/organizations/:org/policies', handler: createPolicy },
  { method: 'GET', pattern: '/policies/:id', handler: showPolicy },
  { method: 'PATCH', pattern: '/policies/:id', handler: updatePolicy },
  { method: 'DELETE', pattern: '/policies/:id', handler: deletePolicy },
];

function listPolicies(ctx: Context): Reply {
  const org = requireOrg(ctx.store, ctx.params.org);
  const search = ctx.query.get('search[name]')?.toLowerCase();
  const kind = ctx.query.get('filter[kind]');
  const all = policiesOf(ctx.store, org.name);
  const filtered = search !== undefined || (kind !== null && kind !== '');
  const matching = sortPolicies(!filtered ? all : all.filter(
    (policy) =>
      (search === undefined || policy.name.toLowerCase().includes(search)) &&
      (kind === null || kind === '' || kindWord(policy.kind, ctx.behaviour.nativeKind) === kind),
  ), ctx.query.get('sort'));
  const page = paginate(matching, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  const body: Record<string, unknown> = {
    data: page.items.map((policy) => policyResource(policy, 'list', ctx.behaviour.legacyEnforce, ctx.behaviour.nativeKind, ctx.behaviour.listOmitsPolicySets)),
    links: page.links,
    meta: { pagination: page.pagination },
  };
  if (includes(ctx.query, 'policy_sets')) body.included = includedPolicySets(page.items);
  return { status: 200, body };
}

/**
 * `sort`: `name` or `updated-at`, a leading `-` for descending; ties keep the order of creation. A policy never uploaded
 * (`updated-at` null) sorts before any uploaded one.
 */
function sortPolicies(policies: readonly PolicyRecord[], sort: string | null): readonly PolicyRecord[] {
  if (sort === null || sort === '') return policies;
  const descending = sort.startsWith('-');
  const key = descending ? sort.slice(1) : sort;
  if (key !== 'name' && key !== 'updated-at') {
    throw new ReplyError(400, [{ status: '400', title: 'bad request', detail: 'sort must be name or updated-at, optionally with a leading -' }]);
  }
  const field = (policy: PolicyRecord): string => (key === 'name' ? policy.name : (policy.updatedAt ?? ''));
  const order = descending ? -1 : 1;
  return [...policies].sort((a, b) => (field(a) < field(b) ? -order : field(a) > field(b) ? order : 0));
}

async function createPolicy(ctx: Context): Promise<Reply> {
  const org = requireOrg(ctx.store, ctx.params.org);
  const body = await readJsonBody(ctx.req, JSON_API);
  const taken = (name: string): boolean => policyNamed(ctx.store, org.name, name) !== undefined;
  const input = parsePolicyCreate(body, org, taken, ctx.behaviour);
  const policy: PolicyRecord = { id: newId('pol'), org: org.name, ...input, updatedAt: null, code: null };
  addPolicy(ctx.store, policy);
  return { status: 200, body: { data: policyResource(policy, 'create', ctx.behaviour.legacyEnforce, ctx.behaviour.nativeKind) } };
}

export function showPolicyReply(ctx: Context, policy: PolicyRecord): Reply {
  const body: Record<string, unknown> = { data: policyResource(policy, 'show', ctx.behaviour.legacyEnforce, ctx.behaviour.nativeKind, ctx.behaviour.showOmitsPolicySets) };
  if (includes(ctx.query, 'policy_sets')) body.included = includedPolicySets([policy]);
  return { status: 200, body };
}

function showPolicy(ctx: Context): Reply {
  return showPolicyReply(ctx, requirePolicy(ctx.store, ctx.params.id));
}

async function updatePolicy(ctx: Context): Promise<Reply> {
  const policy = requirePolicy(ctx.store, ctx.params.id);
  const update = parsePolicyUpdate(await readJsonBody(ctx.req, JSON_API), policy, ctx.behaviour);
  if (update.description !== undefined) policy.description = update.description;
  if (update.query !== undefined) policy.query = update.query;
  if (update.level !== undefined) policy.level = update.level;
  return { status: 200, body: { data: policyResource(policy, 'update', ctx.behaviour.legacyEnforce, ctx.behaviour.nativeKind) } };
}

function deletePolicy(ctx: Context): Reply {
  const policy = requirePolicy(ctx.store, ctx.params.id);
  removePolicy(ctx.store, policy);
  return { status: 204 };
}
