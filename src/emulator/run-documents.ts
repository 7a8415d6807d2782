/** JSON:API serialisers of runs, task stages, policy checks, policy evaluations and policy-set outcomes, in go-tfe's shapes. */
import type { NativeKindName } from '../model.js';
import { kindWord } from './records.js';
import {
  checkCounts, resultCount, type EvaluationRecord, type PolicyCheckRecord, type PolicyOutcomeRecord, type RunRecord, type RunStore, type SetOutcomeRecord,
  type TaskStageRecord,
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
      source: run.source,
      'trigger-reason': run.triggerReason,
      message: 'Queued manually using the API',
      'has-changes': true,
      'is-destroy': run.isDestroy,
      'plan-only': run.planOnly,
      'refresh-only': run.refreshOnly,
    },
    relationships: {
      workspace: { data: ref(run.workspaceId, 'workspaces') },
      'task-stages': { data: run.stageIds.map((id) => ref(id, 'task-stages')) },
      'policy-checks': { data: run.checkIds.map((id) => ref(id, 'policy-checks')) },
    },
    links: { self: `${BASE}/runs/${run.id}` },
  };
}

/** A stage's status: as given, else `passed` with no evaluation, else the worst of its evaluations'. */
function stageStatus(runs: RunStore, stage: TaskStageRecord): string {
  if (stage.status !== undefined) return stage.status;
  const statuses = stage.evaluationIds.map((id) => runs.evaluations.get(id)?.status ?? 'pending');
  for (const status of ['running', 'pending', 'queued', 'unreachable', 'errored', 'canceled', 'failed'] as const) if (statuses.includes(status)) return status;
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

/**
 * A policy check (go-tfe `PolicyCheck`, `policy-checks.mdx`): its `result` counts, and, unless the check gives only
 * counts, the per-policy detail in `result.sentinel` as a public script reads it off the service:
 * `sentinel.data.<set>.policies[]`, each `policy` (`<set>/<name>`), `result`, `allowed-failure` and `error`
 * (docs/api-behaviour.md, Policy checks).
 */
export function policyCheckResource(check: PolicyCheckRecord): Record<string, unknown> {
  const ended = check.status !== 'queued' && check.status !== 'pending';
  const sentinel = {
    schema_version: 1,
    data: Object.fromEntries(check.sets.map((set) => [set.setName, {
      result: set.outcomes.every((outcome) => outcome.status === 'passed' || outcome.enforcementLevel === 'advisory'),
      policies: set.outcomes.map((outcome) => ({
        policy: `${set.setName}/${outcome.policyName}`,
        result: outcome.status === 'passed',
        'allowed-failure': outcome.enforcementLevel === 'advisory',
        error: outcome.status === 'errored' ? `policy ${outcome.policyName} errored` : null,
      })),
    }])),
  };
  return {
    id: check.id,
    type: 'policy-checks',
    attributes: {
      status: check.status,
      scope: 'organization',
      result: ended ? { ...checkCounts(check), ...(check.detail ? { sentinel } : {}) } : null,
      'status-timestamps': { 'queued-at': check.createdAt, ...(ended ? { [`${check.status.replaceAll('_', '-')}-at`]: check.createdAt } : {}) },
      actions: { 'is-overridable': check.status === 'soft_failed' },
      permissions: { 'can-override': false },
    },
    relationships: { run: { data: ref(check.runId, 'runs') } },
    links: { self: `${BASE}/policy-checks/${check.id}`, output: `${BASE}/policy-checks/${check.id}/output` },
  };
}

/** The check's log, as Sentinel prints it: one line per policy. */
export function policyCheckOutput(check: PolicyCheckRecord): string {
  const lines = check.sets.flatMap((set) => set.outcomes.map((outcome) =>
    `${outcome.status === 'passed' ? 'Pass' : 'Fail'} - ${outcome.policyName}.sentinel (${outcome.enforcementLevel})`));
  return `Sentinel Result: ${String(checkCounts(check).result)}\n\n${lines.join('\n')}\n`;
}
