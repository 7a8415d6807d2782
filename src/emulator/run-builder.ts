/**
 * The runs the emulator is given: from the seed, each outcome spelled out; from the control endpoint, a table of
 * policy → status played against the sets that apply to the workspace now, with the levels the policies have now.
 */
import { LEVELS_BY_KIND } from '../model.js';
import { badRequest } from './http.js';
import type { RecordKind } from './records.js';
import { addRun, type EvaluationSpec, type OutcomeStatus, type PolicyOutcomeRecord, type RunSpec, type SetOutcomeRecord } from './run-records.js';
import { isVersioned } from './policy-set-documents.js';
import { policiesOf, type OrgRecord, type PolicySetRecord, type Store } from './store.js';
import type { Seed, SeedRun } from './types.js';

type SetSpec = Omit<SetOutcomeRecord, 'id' | 'evaluationId'>;

/** The seed's runs, added to the store it was read into. */
export function addSeededRuns(store: Store, seed: Seed, now: () => number): void {
  for (const org of seed.organizations) {
    for (const run of org.runs ?? []) addRun(store.runs, seedRunSpec(org.name, run, new Date(now()).toISOString()));
  }
}

export function seedRunSpec(org: string, run: SeedRun, nowIso: string): RunSpec {
  const byKind = new Map<RecordKind, Map<string, SetSpec>>();
  for (const outcome of run.outcomes ?? []) {
    const kind = outcome.kind ?? 'native';
    const sets = byKind.get(kind) ?? new Map<string, SetSpec>();
    byKind.set(kind, sets);
    const set = sets.get(outcome.set) ?? { setName: outcome.set, setDescription: null, overridable: null, error: null, outcomes: [] };
    sets.set(outcome.set, set);
    set.outcomes.push({
      policyName: outcome.policy, enforcementLevel: outcome.level ?? LEVELS_BY_KIND[kind][0] ?? 'advisory', status: outcome.status,
      description: null, query: null, prints: [...(outcome.print ?? [])],
    });
  }
  if (byKind.size === 0 && run.evaluation !== undefined) byKind.set(run.kind ?? 'native', new Map());
  const evaluations: EvaluationSpec[] = [...byKind].map(([kind, sets]) => ({
    kind, sets: [...sets.values()], ...(run.evaluation === undefined ? {} : { status: run.evaluation }),
  }));
  return {
    ...(run.id === undefined ? {} : { id: run.id }),
    org, workspaceId: run.workspace, createdAt: run.createdAt || nowIso, status: run.status ?? 'applied', evaluations,
  };
}

/** What the control endpoint asks for: a workspace, a table of outcomes, and how the run and its evaluation end. */
export interface RunTable {
  workspaceId: string;
  /** Policy name → its outcome; a policy of an applying set not named here passed. */
  outcomes: Record<string, OutcomeStatus>;
  status: string;
  createdAt: string;
  evaluation?: 'unreachable' | 'errored';
  /** Lines a policy printed, by policy name. */
  prints?: Record<string, string[]>;
}

/**
 * The run's evaluations: one per kind of the sets that apply to the workspace (global unless excluded, or scoped to
 * it or its project, and not excluded), each set with every policy it holds at the level it has now (a versioned set:
 * the policies of its current version, at their levels in its config file). A policy named in
 * the table that no applying set holds is a 400.
 */
export function tableRunSpec(store: Store, org: OrgRecord, table: RunTable): RunSpec {
  if (!org.workspaces.has(table.workspaceId)) throw badRequest(`workspace ${table.workspaceId} is not a workspace of organization ${org.name}`);
  const sets = [...org.policySets.values()].filter((set) => set.kind !== 'tfpolicy' && applies(org, set, table.workspaceId));
  const policies = policiesOf(store, org.name);
  const named = new Set(Object.keys(table.outcomes));
  const byKind = new Map<RecordKind, SetSpec[]>();
  for (const set of sets) {
    const held = isVersioned(set) ? versionPolicies(store, set) : policies.filter((policy) => policy.policySetIds.includes(set.id));
    const outcomes: PolicyOutcomeRecord[] = held.map((policy) => {
      named.delete(policy.name);
      return {
        policyName: policy.name, enforcementLevel: policy.level, status: table.outcomes[policy.name] ?? 'passed',
        description: policy.description, query: policy.query, prints: [...(table.prints?.[policy.name] ?? [])],
      };
    });
    const list = byKind.get(set.kind) ?? [];
    list.push({ setName: set.name, setDescription: set.description, overridable: set.overridable, error: null, outcomes });
    byKind.set(set.kind, list);
  }
  if (named.size > 0) {
    throw badRequest(`no policy set that applies to workspace ${table.workspaceId} holds ${[...named].map((name) => JSON.stringify(name)).join(', ')}`);
  }
  const evaluations: EvaluationSpec[] = [...byKind].map(([kind, setSpecs]) => ({
    kind, sets: setSpecs, ...(table.evaluation === undefined ? {} : { status: table.evaluation }),
  }));
  return { org: org.name, workspaceId: table.workspaceId, createdAt: table.createdAt, status: table.status, evaluations };
}

/** A versioned set's policies as its current version declares them, at their levels there; none before one is ready. */
function versionPolicies(store: Store, set: PolicySetRecord): Array<{ name: string; level: string; description: null; query: null }> {
  const current = set.currentVersionId === null ? undefined : store.versions.get(set.currentVersionId);
  return (current?.policies ?? []).map((policy) => ({ ...policy, description: null, query: null }));
}

/** Whether the set applies to the workspace: global, or scoped to it or to its project; an exclusion wins. */
export function applies(org: OrgRecord, set: PolicySetRecord, workspaceId: string): boolean {
  const project = org.workspaceProjects.get(workspaceId);
  const excluded = set.workspaceExclusionIds.includes(workspaceId) || (project !== undefined && set.projectExclusionIds.includes(project));
  if (excluded) return false;
  return set.global || set.workspaceIds.includes(workspaceId) || (project !== undefined && set.projectIds.includes(project));
}
