/** Plans for the renderer tests, made by the real planner from declared and live state. */
import { withMarker } from '../../src/plan/marker.js';
import { planChanges } from '../../src/plan/plan.js';
import type { SavedRun } from '../../src/plan/saved.js';
import type { SourcePlan } from '../../src/plan/types.js';
import { declaredPolicy, declaredPool, defaultOptions, livePolicy, livePool } from './plan-fixtures.js';

const TAGS = [
  'import "tfplan/v2" as tfplan',
  '',
  'allowed = ["eu-west-1", "eu-central-1"]',
  '',
  'main = rule {',
  '  all tfplan.resources as _, r {',
  '    r.tags is not null',
  '  }',
  '}',
  '',
].join('\n');

/** One source with every kind of change, a code diff, warnings and errors (a guard and an apply failure). */
export function richPlans(): SourcePlan[] {
  const options = defaultOptions({ source: 'platform', prune: true, maxDeletes: 1 });
  const declared = {
    policies: [
      declaredPolicy({ name: 'require-tags', code: TAGS.replace('r.tags is not null', 'r.tags contains "owner"'), enforcementLevel: 'hard-mandatory', description: 'Tags | owners' }),
      declaredPolicy({ name: 'new-policy', kind: 'opa', code: 'package x\n\ndeny contains "no" if false\n', query: 'data.x.deny', description: 'Uses `code` and <html>' }),
      declaredPolicy({ name: 'kind-change', kind: 'opa', code: 'package k\n', query: 'data.k.deny', enforcementLevel: 'mandatory' }),
      declaredPolicy({ name: 'sets', code: 'main = rule { true }\n', policySets: ['polset-NEW'] }),
    ],
    pools: [
      declaredPool({ name: 'builders', previousNames: ['build'], allowedWorkspaces: ['*-prod'], agentCleanup: { statuses: ['exited'], afterMs: 3_600_000, after: '1h' } }),
      declaredPool({ name: 'deploy', organizationScoped: false }),
    ],
  };
  const live = {
    policies: [
      livePolicy({ name: 'require-tags', code: TAGS.replace(/\n/g, '\r\n'), description: withMarker('Tags | owners', 'platform') }),
      livePolicy({ name: 'kind-change', code: null, description: withMarker(null, 'platform') }),
      livePolicy({ name: 'sets', code: 'main = rule { true }\n', description: withMarker(null, 'platform'), policySetIds: ['polset-OLD'] }),
      livePolicy({ name: 'retired-1', description: withMarker('Old one.', 'platform') }),
      livePolicy({ name: 'retired-2', kind: 'opa', query: 'data.r.deny', enforcementLevel: 'mandatory', description: withMarker(null, 'platform') }),
    ],
    pools: [
      livePool({
        name: 'build',
        allowedWorkspaceIds: ['ws-a'],
        agents: [
          { id: 'agent-AbC123', name: 'runner-1', status: 'exited', lastPingAt: '2026-01-01T00:00:00.000Z', createdAt: '2025-12-01T00:00:00.000Z' },
          { id: 'agent-DeF456', name: 'runner-2', status: 'idle', lastPingAt: '2026-01-01T00:00:00.000Z', createdAt: '2025-12-01T00:00:00.000Z' },
        ],
      }),
    ],
    // The organization's workspaces: the pool's access list shows them by name, and what its wildcard matched.
    workspaces: [{ id: 'ws-a', name: 'app-prod' }, { id: 'ws-b', name: 'data-prod' }, { id: 'ws-c', name: 'sandbox' }],
  };
  const plan = planChanges(declared, live, options);
  plan.errors.push('update policy "require-tags" failed: API answered 503 (PATCH /policies/pol-require-tags)');
  return [
    { name: 'platform', organization: 'example-org', revision: '3f2a9c1e0b7d4a6f8e5c2b1a0d9e8f7c6b5a4d3e', plan },
    { name: 'docs', organization: 'docs-org', revision: null, plan: { changes: [], warnings: [], errors: [] } },
  ];
}

export function emptyPlans(): SourcePlan[] {
  return [{ name: 'example', organization: 'example-org', revision: null, plan: { changes: [], warnings: [], errors: [] } }];
}

/** An agent clean-up of an agent that never pinged: its `last-ping-at` is null before and after. */
export function neverPingedPlans(): SourcePlan[] {
  const cleanup = { statuses: ['exited' as const], afterMs: 3_600_000, after: '1h' };
  const plan = planChanges(
    { policies: [], pools: [declaredPool({ name: 'build', agentCleanup: cleanup })] },
    {
      policies: [],
      pools: [livePool({ name: 'build', agents: [{ id: 'agent-Nev123', name: 'runner-9', status: 'exited', lastPingAt: null, createdAt: '2026-01-01T00:00:00.000Z' }] })],
    },
    defaultOptions(),
  );
  return [{ name: 'platform', organization: 'example-org', revision: null, plan }];
}

/** A saved plan's record of the run that made it, for renderings of a saved plan without a run. */
export const SAVED_RUN: SavedRun = { api_url: 'http://127.0.0.1:9/api/v2', native_kind: 'native', legacy_enforce: false, sources: [] };
