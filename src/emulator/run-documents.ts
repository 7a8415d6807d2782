/** JSON:API serialisers of runs, task stages, policy evaluations and policy-set outcomes, in go-tfe's shapes. */
import type { NativeKindName } from '../model.js';
import { kindWord } from './records.js';
import {
  resultCount, type EvaluationRecord, type PolicyOutcomeRecord, type RunRecord, type RunStore, type SetOutcomeRecord, type TaskStageRecord,
} from './run-records.js';

const BASE = '/api/v2';

function ref(id: string, type: string): { id: string; type: string } {
  return { id, type };
}

export function runResource(run: RunRecord): Record<string, unknown> {
  return {
    id: run.id,
    type: 'runs',
    attributes: {
      status: run.status,
      'created-at': run.createdAt,
      'status-timestamps': { [`${run.status.replaceAll('_', '-')}-at`]: run.createdAt },
      source: 'tfe-api',
      message: 'Queued manually using the API',
      'has-changes': true,
      'is-destroy': false,
      'plan-only': false,
    },
    relationships: {
      workspace: { data: ref(run.workspaceId, 'workspaces') },
      'task-stages': { data: run.stageIds.map((id) => ref(id, 'task-stages')) },
    },
    links: { self: `${BASE}/runs/${run.id}` },
  };
}

/** A stage's status: `passed` with no evaluation, else the worst of its evaluations'. */
function stageStatus(runs: RunStore, stage: TaskStageRecord): string {
  const statuses = stage.evaluationIds.map((id) => runs.evaluations.get(id)?.status ?? 'pending');
  for (const status of ['running', 'pending', 'unreachable', 'errored', 'failed'] as const) if (statuses.includes(status)) return status;
  return 'passed';
}

export function taskStageResource(runs: RunStore, stage: TaskStageRecord): Record<string, unknown> {
  return {
    id: stage.id,
    type: 'task-stages',
    attributes: {
      stage: stage.stage,
      status: stageStatus(runs, stage),
      'status-timestamps': {},
      'created-at': stage.createdAt,
      'updated-at': stage.createdAt,
      permissions: { 'can-override-policy': false, 'can-override-tasks': false, 'can-override': false },
      actions: { 'is-overridable': false },
    },
    relationships: {
      run: { data: ref(stage.runId, 'runs') },
      'task-results': { data: [] },
      'policy-evaluations': { data: stage.evaluationIds.map((id) => ref(id, 'policy-evaluations')) },
    },
    links: { self: `${BASE}/task-stages/${stage.id}` },
  };
}

export function evaluationResource(runs: RunStore, evaluation: EvaluationRecord, nativeKind: NativeKindName): Record<string, unknown> {
  const outcomes = evaluation.setOutcomeIds.flatMap((id) => runs.setOutcomes.get(id)?.outcomes ?? []);
  return {
    id: evaluation.id,
    type: 'policy-evaluations',
    attributes: {
      status: evaluation.status,
      'policy-kind': kindWord(evaluation.kind, nativeKind),
      'result-count': resultCount(outcomes),
      'status-timestamps': {},
      'created-at': evaluation.createdAt,
      'updated-at': evaluation.createdAt,
    },
    relationships: {
      'policy-attachable': { data: ref(evaluation.stageId, 'task-stages') },
      'policy-set-outcomes': { links: { related: `${BASE}/policy-evaluations/${evaluation.id}/policy-set-outcomes` } },
    },
    links: { self: `${BASE}/policy-evaluations/${evaluation.id}` },
  };
}

/** `outcomes`: the entries shown (a filtered list shows only those matching); `output` only when the policy printed. */
export function setOutcomeResource(set: SetOutcomeRecord, outcomes: readonly PolicyOutcomeRecord[] = set.outcomes): Record<string, unknown> {
  return {
    id: set.id,
    type: 'policy-set-outcomes',
    attributes: {
      outcomes: outcomes.map((outcome) => ({
        policy_name: outcome.policyName,
        enforcement_level: outcome.enforcementLevel,
        status: outcome.status,
        description: outcome.description ?? '',
        query: outcome.query ?? '',
        ...(outcome.prints.length === 0 ? {} : { output: outcome.prints.map((print) => ({ print })) }),
      })),
      error: set.error ?? '',
      overridable: set.overridable,
      'policy-set-name': set.setName,
      'policy-set-description': set.setDescription ?? '',
      result_count: resultCount(outcomes),
    },
    relationships: { 'policy-evaluation': { data: ref(set.evaluationId, 'policy-evaluations') } },
    links: { self: `${BASE}/policy-set-outcomes/${set.id}` },
  };
}
