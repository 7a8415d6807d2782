/** Agents: list per pool, show, delete (only unknown, errored or exited agents). */
import { agentResource } from './documents.js';
import { ReplyError, badRequest, type Reply } from './http.js';
import { requireAgent, requirePool } from './lookups.js';
import { paginate } from './pagination.js';
import type { Context, Route } from './router.js';
import { agentsOf, removeAgent } from './store.js';

const DELETABLE = new Set(['unknown', 'errored', 'exited']);

export const agentRoutes: Route[] = [
  { method: 'GET', pattern: '/agent-pools/:id/agents', handler: listAgents },
  { method: 'GET', pattern: '/agents/:id', handler: showAgent },
  { method: 'DELETE', pattern: '/agents/:id', handler: deleteAgent },
];

function listAgents(ctx: Context): Reply {
  const pool = requirePool(ctx.store, ctx.params.id);
  const sinceText = ctx.query.get('filter[last-ping-since]');
  const since = sinceText === null ? null : Date.parse(sinceText);
  if (since !== null && Number.isNaN(since)) throw badRequest('filter[last-ping-since] must be an ISO 8601 date-time');
  const matching = agentsOf(ctx.store, pool.id).filter((agent) => since === null || (agent.lastPingAt !== null && Date.parse(agent.lastPingAt) >= since));
  const page = paginate(matching, ctx.query, `${ctx.origin}/api/v2${ctx.path}`, ctx.repeatItems);
  return {
    status: 200,
    body: { data: page.items.map(agentResource), links: page.links, meta: { pagination: page.pagination } },
  };
}

function showAgent(ctx: Context): Reply {
  return { status: 200, body: { data: agentResource(requireAgent(ctx.store, ctx.params.id)) } };
}

function deleteAgent(ctx: Context): Reply {
  const agent = requireAgent(ctx.store, ctx.params.id);
  if (!DELETABLE.has(agent.status)) {
    throw new ReplyError(412, [
      { status: '412', title: 'precondition failed', detail: `Agent is ${agent.status}; only unknown, errored or exited agents can be deleted` },
    ]);
  }
  removeAgent(ctx.store, agent);
  return { status: 204 };
}
