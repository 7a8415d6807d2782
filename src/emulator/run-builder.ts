/**
 * The runs the emulator is given: from the seed, each outcome spelled out; from the control endpoint, a table of
 * policy → status played against the sets that apply to the workspace now, with the levels the policies have now.
 */
import { LEVELS_BY_KIND, tagSelection } from '../model.js';
import { badRequest } from './http.js';
import type { RecordKind } from './records.js';
import {
  addRun, type CheckSpec, type EvaluationSpec, type OutcomeStatus, type PolicyOutcomeRecord, type RunKind, type RunSpec, type SetOutcomeRecord, type StageStatus,
} from './run-records.js';
import { isVersioned } from './policy-set-documents.js';
import { policiesOf, type OrgRecord, type PolicySetRecord, type Store } from './store.js';
import type { Seed, SeedRun } from './types.js';

type SetSpec = Omit<SetOutcomeRecord, 'id' | 'evaluationId'>;

/** The seed's runs, added to the store it was read into. */
export function addSeededRuns(store: Store, seed: Seed, now: () => number): void {
  for (const org of seed.organizations) {
    const agentSets = new Set([...(store.orgs.get(org.name)?.policySets.values() ?? [])].filter((set) => set.agentEnabled).map((set) => set.name));
    for (const run of org.runs ?? []) addRun(store.runs, seedRunSpec(org.name, run, new Date(now()).toISOString(), agentSets));
  }
}

/**
 * A seeded run: each outcome reported by a policy check when it is of a native set that is not agent-enabled (a set
 * the seed does not hold is taken as one), by a policy evaluation of its kind otherwise, or as `via` says.
 */
export function seedRunSpec(org: string, run: SeedRun, nowIso: string, agentSets: ReadonlySet<string> = new Set()): RunSpec {
  const byKind = new Map<RecordKind, Map<string, SetSpec>>();
  const checked = new Map<string, PolicyOutcomeRecord[]>();
  for (const outcome of run.outcomes ?? []) {
    const kind = outcome.kind ?? 'native';
    const record: PolicyOutcomeRecord = {
      policyName: outcome.policy, enforcementLevel: outcome.level ?? LEVELS_BY_KIND[kind][0] ?? 'advisory', status: outcome.status,
      description: null, query: null, prints: [...(outcome.print ?? [])],
    };
    const via = outcome.via ?? (kind === 'native' && !agentSets.has(outcome.set) ? 'check' : 'evaluation');
    if (via === 'check') {
      checked.set(outcome.set, [...(checked.get(outcome.set) ?? []), record]);
      continue;
    }
    const sets = byKind.get(kind) ?? new Map<string, SetSpec>();
    byKind.set(kind, sets);
    const set = sets.get(outcome.set) ?? { setName: outcome.set, setDescription: null, overridable: null, error: null, outcomes: [] };
    sets.set(outcome.set, set);
    set.outcomes.push(record);
  }
  if (byKind.size === 0 && run.evaluation !== undefined) byKind.set(run.kind ?? 'native', new Map());
  const evaluations: EvaluationSpec[] = [...byKind].map(([kind, sets]) => ({
    kind, sets: [...sets.values()], ...(run.evaluation === undefined ? {} : { status: run.evaluation }),
  }));
  const check = checked.size === 0 && run.check === undefined ? undefined : {
    sets: [...checked].map(([setName, outcomes]) => ({ setName, outcomes })), detail: run.checkDetail ?? true, ...(run.check === undefined ? {} : { status: run.check }),
  };
  return {
    ...(run.id === undefined ? {} : { id: run.id }),
    org, workspaceId: run.workspace, createdAt: run.createdAt || nowIso, status: run.status ?? 'applied', evaluations,
    ...(check === undefined ? {} : { check }),
    ...(run.stage === undefined ? {} : { stageStatus: run.stage }),
    kind: runKindOf(run),
  };
}

/** The kind of run a seed or a table asks for. */
export function runKindOf(run: Partial<RunKind>): Partial<RunKind> {
  const kind: Partial<RunKind> = {};
  for (const key of ['planOnly', 'isDestroy', 'refreshOnly', 'source', 'triggerReason'] as const) if (run[key] !== undefined) Object.assign(kind, { [key]: run[key] });
  return kind;
}

/** What the control endpoint asks for: a workspace, a table of outcomes, and how the run and its evaluation end. */
export interface RunTable {
  workspaceId: string;
  /** Policy name → its outcome; a policy of an applying set not named here passed. */
  outcomes: Record<string, OutcomeStatus>;
  status: string;
  createdAt: string;
  evaluation?: 'unreachable' | 'errored' | 'canceled' | 'queued';
  /** The policy check (of the native sets that are not agent-enabled) ended so instead of with outcomes. */
  check?: NonNullable<CheckSpec['status']>;
  /** false: the check gives only counts. @default true */
  checkDetail?: boolean;
  /** The `post_plan` stage ended so with no evaluation. */
  stage?: StageStatus;
  kind?: Partial<RunKind>;
  /** Lines a policy printed, by policy name. */
  prints?: Record<string, string[]>;
}

/**
 * The run's policy check and evaluations, of the sets that apply to the workspace (global unless excluded, or scoped
 * to it or its project, and not excluded), each set with every policy it holds at the level it has now (a versioned
 * set: the policies of its current version, at their levels in its config file): the native sets that are not
 * agent-enabled in one policy check, the others in one evaluation per kind. A policy named in the table that no
 * applying set holds is a 400.
 */
export function tableRunSpec(store: Store, org: OrgRecord, table: RunTable): RunSpec {
  if (!org.workspaces.has(table.workspaceId)) throw badRequest(`workspace ${table.workspaceId} is not a workspace of organization ${org.name}`);
  const sets = [...org.policySets.values()].filter((set) => set.kind !== 'tfpolicy' && applies(org, set, table.workspaceId));
  const policies = policiesOf(store, org.name);
  const named = new Set(Object.keys(table.outcomes));
  const byKind = new Map<RecordKind, SetSpec[]>();
  const checked: CheckSpec['sets'] = [];
  for (const set of sets) {
    const held = isVersioned(set) ? versionPolicies(store, set) : policies.filter((policy) => policy.policySetIds.includes(set.id));
    const outcomes: PolicyOutcomeRecord[] = held.map((policy) => {
      named.delete(policy.name);
      return {
        policyName: policy.name, enforcementLevel: policy.level, status: table.outcomes[policy.name] ?? 'passed',
        description: policy.description, query: policy.query, prints: [...(table.prints?.[policy.name] ?? [])],
      };
    });
    if (set.kind === 'native' && !set.agentEnabled) {
      checked.push({ setName: set.name, outcomes });
      continue;
    }
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
  const check = checked.length === 0 && table.check === undefined ? undefined : {
    sets: checked, detail: table.checkDetail ?? true, ...(table.check === undefined ? {} : { status: table.check }),
  };
  return {
    org: org.name, workspaceId: table.workspaceId, createdAt: table.createdAt, status: table.status, evaluations,
    ...(check === undefined ? {} : { check }), ...(table.stage === undefined ? {} : { stageStatus: table.stage }), kind: table.kind ?? {},
  };
}

/** A versioned set's policies as its current version declares them, at their levels there; none before one is ready. */
function versionPolicies(store: Store, set: PolicySetRecord): Array<{ name: string; level: string; description: null; query: null }> {
  const current = set.currentVersionId === null ? undefined : store.versions.get(set.currentVersionId);
  return (current?.policies ?? []).map((policy) => ({ ...policy, description: null, query: null }));
}

/**
 * Whether the set applies to the workspace: global, scoped to it or to its project, or selected by the set's tag
 * selectors (key and value, as the workspace's tags); an exclusion, by id or by tag, wins.
 */
export function applies(org: OrgRecord, set: PolicySetRecord, workspaceId: string): boolean {
  const project = org.workspaceProjects.get(workspaceId);
  const excluded = set.workspaceExclusionIds.includes(workspaceId) || (project !== undefined && set.projectExclusionIds.includes(project));
  const byTags = tagSelection(set.tagSelectors, set.tagMatch, org.workspaceTags.get(workspaceId) ?? []);
  if (excluded || byTags === 'excluded') return false;
  return set.global || byTags === 'included' || set.workspaceIds.includes(workspaceId) || (project !== undefined && set.projectIds.includes(project));
}
