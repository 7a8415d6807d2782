/**
 * Readers of runs, task stages, policy evaluations and policy-set outcomes. Lenient in what they accept (a missing
 * attribute has its default; `result_count` or `result-count`), but every id must have its resource's shape (ids.ts):
 * an answer naming another is unusable, never put into a URL.
 */
import { checkedId, type IdKind } from './ids.js';
import { field, int, isObject, str } from './json-api.js';
import type { CheckedPolicy, PolicyCheck, PolicyEvaluation, PolicyOutcome, PolicySetOutcome, Run, TaskStage } from './run-types.js';

/** The ids of a to-many relationship, or null when the resource leaves it (or its `data`) out. */
function relationshipIds(resource: unknown, name: string, kind: IdKind): string[] | null {
  const data = field(field(field(resource, 'relationships'), name), 'data');
  if (!Array.isArray(data)) return null;
  return data.map((item) => checkedId(kind, field(item, 'id')));
}

function nonEmpty(value: unknown): string | null {
  const text = str(value);
  return text === null || text.trim() === '' ? null : text;
}

/**
 * The run; its task stages from the document's `included` when it carries them all. A document with no `included`
 * member did not take the include (the run lists do not document it), so its empty relationship says nothing.
 */
export function parseRun(resource: unknown, document?: unknown): Run {
  const attributes = field(resource, 'attributes');
  const workspace = field(field(field(resource, 'relationships'), 'workspace'), 'data');
  const stageIds = relationshipIds(resource, 'task-stages', 'task-stage');
  const included = includedStages(document);
  const stages = stageIds?.map((id) => included?.get(id)) ?? [];
  const flag = (key: string): boolean => field(attributes, key) === true;
  return {
    id: checkedId('run', field(resource, 'id')),
    status: str(field(attributes, 'status')) ?? '',
    createdAt: str(field(attributes, 'created-at')) ?? '',
    workspaceId: isObject(workspace) ? checkedId('workspace', field(workspace, 'id')) : null,
    taskStages: stageIds !== null && included !== null && stages.every((stage) => stage !== undefined) ? (stages as TaskStage[]) : null,
    policyCheckIds: relationshipIds(resource, 'policy-checks', 'policy-check'),
    planOnly: flag('plan-only'),
    refreshOnly: flag('refresh-only'),
    isDestroy: flag('is-destroy'),
    source: str(field(attributes, 'source')) ?? '',
    triggerReason: str(field(attributes, 'trigger-reason')) ?? '',
  };
}

/** The stages of a document's `included`, read once per document (a page of 100 runs includes 200 or more). */
const STAGES_READ = new WeakMap<object, Map<string, TaskStage> | null>();

/** null: the document has no `included` (or none was given). */
function includedStages(document: unknown): Map<string, TaskStage> | null {
  if (!isObject(document)) return null;
  const read = STAGES_READ.get(document);
  if (read !== undefined) return read;
  const included = field(document, 'included');
  if (!Array.isArray(included)) {
    STAGES_READ.set(document, null);
    return null;
  }
  const stages = new Map<string, TaskStage>();
  STAGES_READ.set(document, stages);
  for (const item of included) {
    if (field(item, 'type') !== 'task-stages') continue;
    const stage = parseTaskStage(item);
    stages.set(stage.id, stage);
  }
  return stages;
}

export function parseTaskStage(resource: unknown): TaskStage {
  const attributes = field(resource, 'attributes');
  return {
    id: checkedId('task-stage', field(resource, 'id')),
    stage: str(field(attributes, 'stage')) ?? '',
    status: str(field(attributes, 'status')) ?? '',
    policyEvaluationIds: relationshipIds(resource, 'policy-evaluations', 'policy-evaluation'),
  };
}

export function parsePolicyEvaluation(resource: unknown): PolicyEvaluation {
  const attributes = field(resource, 'attributes');
  const counts = field(attributes, 'result-count') ?? field(attributes, 'result_count');
  return {
    id: checkedId('policy-evaluation', field(resource, 'id')),
    status: str(field(attributes, 'status')) ?? '',
    policyKind: str(field(attributes, 'policy-kind')) ?? '',
    resultCount: readCounts(counts),
  };
}

function readCounts(counts: unknown): PolicyEvaluation['resultCount'] {
  const count = (key: string): number => int(field(counts, key) ?? field(counts, key.replace('-', '_')), 0);
  return { advisoryFailed: count('advisory-failed'), mandatoryFailed: count('mandatory-failed'), passed: count('passed'), errored: count('errored') };
}

export function parsePolicySetOutcome(resource: unknown): PolicySetOutcome {
  const attributes = field(resource, 'attributes');
  const outcomes = field(attributes, 'outcomes');
  const overridable = field(attributes, 'overridable');
  return {
    id: checkedId('policy-set-outcome', field(resource, 'id')),
    evaluationId: evaluationOf(resource),
    policySetName: str(field(attributes, 'policy-set-name')) ?? '',
    error: nonEmpty(field(attributes, 'error')) ?? unnamedError(outcomes),
    overridable: typeof overridable === 'boolean' ? overridable : null,
    outcomes: Array.isArray(outcomes) ? outcomes.flatMap(parseOutcome) : [],
  };
}

/**
 * One entry of `outcomes`, whose keys carry underscores. An entry without a policy name (the spec allows a null one)
 * names no policy: the set's error (parsePolicySetOutcome) says what it did.
 */
function parseOutcome(entry: unknown): PolicyOutcome[] {
  const policyName = str(field(entry, 'policy_name'));
  if (policyName === null || policyName === '') return [];
  const output = field(entry, 'output');
  return [{
    policyName,
    enforcementLevel: str(field(entry, 'enforcement_level')) ?? '',
    status: str(field(entry, 'status')) ?? '',
    description: nonEmpty(field(entry, 'description')),
    prints: Array.isArray(output) ? output.flatMap((line) => str(field(line, 'print')) ?? []) : [],
  }];
}

function evaluationOf(resource: unknown): string | null {
  const data = field(field(field(resource, 'relationships'), 'policy-evaluation'), 'data');
  return isObject(data) ? checkedId('policy-evaluation', field(data, 'id')) : null;
}

/** An entry without a policy name that did not pass is an error of the set: its description, or what it was. */
function unnamedError(outcomes: unknown): string | null {
  if (!Array.isArray(outcomes)) return null;
  for (const entry of outcomes) {
    const name = str(field(entry, 'policy_name'));
    const status = str(field(entry, 'status')) ?? '';
    if ((name === null || name === '') && status !== 'passed') return nonEmpty(field(entry, 'description')) ?? `an entry naming no policy ${status === '' ? 'has no status' : `is ${status}`}`;
  }
  return null;
}

/**
 * A policy check (go-tfe `PolicyCheck`). Its `result` counts are read with `-` or `_`; its `sentinel` detail, which
 * no vendor document gives the shape of (the docs say it "may change over time"), is read as a public script reads the
 * service's answers: `sentinel.data.<set>.policies[]`, each `policy` (`<set>/<name>`), `result`, `allowed-failure`
 * (or `allowed_failure`) and `error`. Another shape is no detail: the check then gives only its counts.
 */
export function parsePolicyCheck(resource: unknown): PolicyCheck {
  const attributes = field(resource, 'attributes');
  const result = field(attributes, 'result');
  const count = (key: string): number => int(field(result, key) ?? field(result, key.replaceAll('-', '_')), 0);
  return {
    id: checkedId('policy-check', field(resource, 'id')),
    status: str(field(attributes, 'status')) ?? '',
    counts: isObject(result) ? {
      passed: count('passed'), totalFailed: count('total-failed'), hardFailed: count('hard-failed'), softFailed: count('soft-failed'), advisoryFailed: count('advisory-failed'),
    } : null,
    policies: checkedPolicies(field(result, 'sentinel')),
  };
}

function checkedPolicies(sentinel: unknown): CheckedPolicy[] | null {
  const data = field(sentinel, 'data');
  if (!isObject(data)) return null;
  const found: CheckedPolicy[] = [];
  for (const [set, detail] of Object.entries(data)) {
    const policies = field(detail, 'policies');
    if (!Array.isArray(policies)) return null;
    for (const entry of policies) {
      const named = str(field(entry, 'policy')) ?? '';
      // `<set>/<name>`; a name without its set's prefix is taken whole.
      const name = named.startsWith(`${set}/`) ? named.slice(set.length + 1) : named.includes('/') ? named.slice(named.lastIndexOf('/') + 1) : named;
      const passed = field(entry, 'result');
      const allowed = field(entry, 'allowed-failure') ?? field(entry, 'allowed_failure');
      found.push({
        policySet: set, policy: name.replace(/\.sentinel$/, ''), passed: typeof passed === 'boolean' ? passed : null, allowedFailure: allowed === true,
        error: nonEmpty(field(entry, 'error')),
      });
    }
  }
  return found;
}
