/**
 * The live state as the API returns it after a successful apply of a plan (docs/api-behaviour.md):
 * the description comes back exactly as written (with the marker), `query` is null for
 * native policies, code comes back byte for byte, PATCH replaces `allowed-workspaces` whole, a rename
 * keeps the pool's id and agents. The bodies are those src/apply/apply.ts sends.
 */
import type { LivePolicy, LivePool, LiveState } from '../../src/model.js';
import type { PlanOptions, Plan, PolicyChange } from '../../src/plan/types.js';
import { withMarker } from '../../src/plan/marker.js';
import { livePolicy, livePool } from './plan-fixtures.js';

function description(text: string | null, options: PlanOptions): string | null {
  return options.ownership === 'marker' ? withMarker(text, options.source) : text;
}

function created(change: PolicyChange, options: PlanOptions): LivePolicy {
  const declared = change.declared!;
  return livePolicy({
    id: `pol-new-${declared.name}`,
    name: declared.name,
    kind: declared.kind,
    description: description(declared.description, options),
    enforcementLevel: declared.enforcementLevel,
    query: declared.kind === 'opa' ? declared.query : null,
    policySetIds: declared.policySets ?? change.live?.policySetIds ?? [],
    code: declared.code,
  });
}

function updated(policy: LivePolicy, change: PolicyChange, options: PlanOptions): LivePolicy {
  const declared = change.declared!;
  const next = { ...policy };
  if ('description' in change.fields || change.adoptMarker) next.description = description(declared.description, options);
  if ('enforcement-level' in change.fields) next.enforcementLevel = declared.enforcementLevel;
  if ('query' in change.fields) next.query = declared.query;
  if (change.uploadCode) next.code = declared.code;
  return next;
}

export function liveAfterApply(live: LiveState, plan: Plan, options: PlanOptions): LiveState {
  let policies = [...live.policies];
  let pools: LivePool[] = live.pools.map((pool) => ({ ...pool, agents: [...pool.agents] }));
  for (const change of plan.changes) {
    if (change.resource === 'policy') {
      if (change.action === 'create') policies.push(created(change, options));
      if (change.action === 'replace') policies = [...policies.filter((p) => p.id !== change.id), created(change, options)];
      if (change.action === 'update') policies = policies.map((p) => (p.id === change.id ? updated(p, change, options) : p));
      if (change.action === 'delete') policies = policies.filter((p) => p.id !== change.id);
    } else if (change.resource === 'agent-pool') {
      const declared = change.declared;
      if (change.action === 'create' && declared !== null) {
        pools.push(livePool({
          id: `apool-new-${declared.name}`, name: declared.name, organizationScoped: declared.organizationScoped,
          allowedWorkspaceIds: declared.allowedWorkspaces ?? [],
        }));
      }
      if (change.action === 'update' && declared !== null) {
        pools = pools.map((p) => p.id !== change.id ? p : {
          ...p,
          name: declared.name,
          organizationScoped: declared.organizationScoped,
          allowedWorkspaceIds: 'allowed-workspaces' in change.fields ? [...(declared.allowedWorkspaces ?? [])].reverse() : p.allowedWorkspaceIds,
        });
      }
      if (change.action === 'delete') pools = pools.filter((p) => p.id !== change.id);
    } else {
      pools = pools.map((p) => ({ ...p, agents: p.agents.filter((a) => a.id !== change.id) }));
    }
  }
  return { policies, pools };
}
