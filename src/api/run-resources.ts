/**
 * Readers of runs, task stages, policy evaluations and policy-set outcomes. Lenient in what they accept (a missing
 * attribute has its default; `result_count` or `result-count`), but every id must have its resource's shape (ids.ts):
 * an answer naming another is unusable, never put into a URL.
 */
import { checkedId, type IdKind } from './ids.js';
import { field, int, isObject, str } from './json-api.js';
import type { PolicyEvaluation, PolicyOutcome, PolicySetOutcome, Run, TaskStage } from './run-types.js';

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

/** The run; its task stages from the document's `included` when it carries them all. */
export function parseRun(resource: unknown, document?: unknown): Run {
  const attributes = field(resource, 'attributes');
  const workspace = field(field(field(resource, 'relationships'), 'workspace'), 'data');
  const stageIds = relationshipIds(resource, 'task-stages', 'task-stage');
  const included = includedStages(document);
  const stages = stageIds?.map((id) => included.get(id)) ?? [];
  return {
    id: checkedId('run', field(resource, 'id')),
    status: str(field(attributes, 'status')) ?? '',
    createdAt: str(field(attributes, 'created-at')) ?? '',
    workspaceId: isObject(workspace) ? checkedId('workspace', field(workspace, 'id')) : null,
    taskStages: stageIds !== null && stages.every((stage) => stage !== undefined) ? (stages as TaskStage[]) : null,
  };
}

/** The stages of a document's `included`, read once per document (a page of 100 runs includes 200 or more). */
const STAGES_READ = new WeakMap<object, Map<string, TaskStage>>();

function includedStages(document: unknown): Map<string, TaskStage> {
  if (!isObject(document)) return new Map();
  const read = STAGES_READ.get(document);
  if (read !== undefined) return read;
  const included = field(document, 'included');
  const stages = new Map<string, TaskStage>();
  STAGES_READ.set(document, stages);
  if (!Array.isArray(included)) return stages;
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
    policySetName: str(field(attributes, 'policy-set-name')) ?? '',
    error: nonEmpty(field(attributes, 'error')),
    overridable: typeof overridable === 'boolean' ? overridable : null,
    outcomes: Array.isArray(outcomes) ? outcomes.flatMap(parseOutcome) : [],
  };
}

/** One entry of `outcomes`, whose keys carry underscores; an entry without a policy name is left out. */
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
