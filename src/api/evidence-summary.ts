/**
 * From the findings of runs to the evidence of policies: pure, no request. A policy's outcome in a run is the worst of
 * the outcomes naming it, from its evaluations' set outcomes or its checks' `sentinel` detail (failed, then errored,
 * then passed; a status word this tool does not know counts as errored, never as passed). With none naming it, what
 * reports it says why: for a policy of a policy check, a check that ended `unreachable`, `errored` or `canceled`, or
 * one that failed with only counts to say which (`counts-only`), while a passing check with only counts passed every
 * policy it checked; for a policy of a policy evaluation, an evaluation or a task stage that ended so, or a set
 * outcome carrying an error. Otherwise the run did not evaluate it.
 */
import type { PolicyReport, PolicyRunOutcome } from '../model.js';
import type { PolicyEvidence, ReadPolicyRun, RunFindings, WorkspaceEvidence } from './evidence-types.js';

/** A policy asked about: its name, and, when known, its kind and how the service reports it. */
export interface PolicyAsk {
  name: string;
  /** `native` (Sentinel) or `opa`; absent: either (an outcome is matched by name alone). */
  kind?: 'native' | 'opa';
  /** @default 'either' */
  via?: PolicyReport;
}

const ENDED_SHORT: ReadonlyArray<'unreachable' | 'errored' | 'canceled'> = ['unreachable', 'errored', 'canceled'];

function kindMatches(ask: PolicyAsk, kind: string): boolean {
  if (ask.kind === undefined || kind === '') return true;
  return ask.kind === 'opa' ? kind === 'opa' : kind === 'sentinel' || kind === 'native';
}

export function policyRun(findings: RunFindings, ask: PolicyAsk): ReadPolicyRun | null {
  const via = ask.via ?? 'either';
  const entries = findings.outcomes.filter((outcome) => outcome.policy === ask.name && (via === 'either' || outcome.via === via) && kindMatches(ask, outcome.kind));
  const base = { runId: findings.runId, createdAt: findings.createdAt, finished: findings.finished, kind: findings.kind };
  if (entries.length === 0) {
    const outcome = unnamedOutcome(findings, via);
    return outcome === null ? null : { ...base, outcome, enforcementLevel: null, policySets: [] };
  }
  const worst = (['failed', 'errored', 'passed'] as const).find((status) => entries.some((entry) => wordOf(entry.status) === status)) ?? 'errored';
  const deciding = entries.find((entry) => wordOf(entry.status) === worst) ?? entries[0];
  const level = deciding?.enforcementLevel ?? '';
  return { ...base, outcome: worst, enforcementLevel: level === '' ? null : level, policySets: [...new Set(entries.map((entry) => entry.policySet))] };
}

function wordOf(status: string): 'passed' | 'failed' | 'errored' {
  return status === 'passed' || status === 'failed' ? status : 'errored';
}

function unnamedOutcome(findings: RunFindings, via: PolicyReport): PolicyRunOutcome | null {
  const checks = via === 'evaluation' ? [] : findings.checks;
  const evaluationSide = via === 'check' ? [] : [...findings.evaluations.map((e) => e.status), ...findings.stages.map((stage) => stage.status)];
  for (const status of ENDED_SHORT) if (checks.some((check) => check.status === status) || evaluationSide.includes(status)) return status;
  if (via !== 'check' && findings.setErrors.length > 0) return 'errored';
  const countsOnly = checks.filter((check) => !check.detail);
  if (countsOnly.some((check) => check.failed > 0 || check.status === 'soft_failed' || check.status === 'hard_failed')) return 'counts-only';
  // A check that passed with only counts passed every policy it checked; only a policy known to be checked was.
  if (via === 'check' && countsOnly.some((check) => check.status === 'passed')) return 'passed';
  return null;
}

/** How one workspace was read: its runs of the window (null: not listed), each with its findings (null: not read). */
export interface WorkspaceRead {
  workspace: { id: string; name: string };
  runs: Array<{ runId: string; findings: RunFindings | null }> | null;
}

export function policyEvidence(ask: PolicyAsk, reads: readonly WorkspaceRead[]): PolicyEvidence {
  return { policy: ask.name, workspaces: reads.map((read) => workspaceEvidence(ask, read)) };
}

function workspaceEvidence(ask: PolicyAsk, read: WorkspaceRead): WorkspaceEvidence {
  const runs = (read.runs ?? []).flatMap(({ findings }) => {
    const run = findings === null ? null : policyRun(findings, ask);
    return run === null ? [] : [run];
  });
  runs.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  return { workspaceId: read.workspace.id, workspaceName: read.workspace.name, latest: runs[0] ?? null, runs, complete: isComplete(read) };
}

/** Whether a workspace's runs of the window were all read: listed, and each one's findings read. */
export function isComplete(read: WorkspaceRead): boolean {
  return read.runs !== null && read.runs.every(({ findings }) => findings !== null);
}

/** Whether evidence read so is partial: the one rule (a workspace not read whole), which every reader of a readout takes as it is. */
export function isPartial(reads: readonly WorkspaceRead[]): boolean {
  return reads.some((read) => !isComplete(read));
}
