/**
 * A policy set's policies, changed by relationship as the hosted service does it (docs/api-behaviour.md, outside the
 * API document): `POST` adds the policies named, `DELETE` removes them; both answer 204. An unknown set is a 404; a
 * policy that does not exist in the set's organization is a 422, and then nothing changes.
 */
import { invalid, isObject, JSON_API, notFound, readJsonBody, type Reply } from './http.js';
import type { Context, Route } from './router.js';
import type { OrgRecord, PolicyRecord } from './store.js';

export const policySetRoutes: Route[] = [
  { method: 'POST', pattern: '/policy-sets/:id/relationships/policies', handler: (ctx) => changeMembers(ctx, 'add') },
  { method: 'DELETE', pattern: '/policy-sets/:id/relationships/policies', handler: (ctx) => changeMembers(ctx, 'remove') },
];

async function changeMembers(ctx: Context, change: 'add' | 'remove'): Promise<Reply> {
  const setId = ctx.params.id ?? '';
  // Seeds may give two organizations a set of the same id: a policy joins the one of its own organization.
  const orgs = [...ctx.store.orgs.values()].filter((candidate) => candidate.policySets.has(setId));
  if (orgs.length === 0) throw notFound();
  const policies = readMembers(await readJsonBody(ctx.req, JSON_API), ctx, orgs);
  for (const policy of policies) {
    const has = policy.policySetIds.includes(setId);
    if (change === 'add' && !has) policy.policySetIds.push(setId);
    if (change === 'remove' && has) policy.policySetIds = policy.policySetIds.filter((id) => id !== setId);
  }
  return { status: 204 };
}

/** `{"data":[{"id":"pol-…","type":"policies"}]}`: every policy must exist in the set's organization, or nothing changes. */
function readMembers(body: unknown, ctx: Context, orgs: readonly OrgRecord[]): PolicyRecord[] {
  if (!isObject(body) || !Array.isArray(body.data)) throw invalid('data must be an array of policies', '/data');
  return body.data.map((item: unknown, i: number) => {
    const pointer = `/data/${i}`;
    if (!isObject(item) || typeof item.id !== 'string' || item.type !== 'policies') throw invalid('each element needs an id and type policies', pointer);
    const policy = ctx.store.policies.get(item.id);
    if (policy === undefined || !orgs.some((org) => org.name === policy.org)) throw invalid(`policy ${item.id} not found`, pointer);
    return policy;
  });
}
