/**
 * From the findings of runs to the evidence of policies: pure, no request. A policy's outcome in a run is the worst of
 * the outcomes naming it (failed, then errored, then passed; a status word this tool does not know counts as errored,
 * never as passed); with none naming it, an evaluation of the run that ended `unreachable` or `errored` (or a set
 * outcome carrying an error) makes it `unreachable` or `errored`, since the run could not say; otherwise the run did
 * not evaluate it.
 */
import type { EvidenceOutcome, EvidenceRun, PolicyEvidence, RunFindings, WorkspaceEvidence } from './evidence-types.js';

export function policyRun(findings: RunFindings, policy: string): EvidenceRun | null {
  const entries = findings.outcomes.filter((outcome) => outcome.policy === policy);
  const base = { runId: findings.runId, createdAt: findings.createdAt, finished: findings.finished };
  if (entries.length === 0) {
    const outcome = unnamedOutcome(findings);
    return outcome === null ? null : { ...base, outcome, enforcementLevel: null, policySets: [] };
  }
  const worst = (['failed', 'errored', 'passed'] as const).find((status) => entries.some((entry) => wordOf(entry.status) === status)) ?? 'errored';
  const deciding = entries.find((entry) => wordOf(entry.status) === worst) ?? entries[0];
  return { ...base, outcome: worst, enforcementLevel: deciding?.enforcementLevel ?? null, policySets: [...new Set(entries.map((entry) => entry.policySet))] };
}

function wordOf(status: string): 'passed' | 'failed' | 'errored' {
  return status === 'passed' || status === 'failed' ? status : 'errored';
}

function unnamedOutcome(findings: RunFindings): EvidenceOutcome | null {
  if (findings.evaluations.some((evaluation) => evaluation.status === 'unreachable')) return 'unreachable';
  if (findings.evaluations.some((evaluation) => evaluation.status === 'errored') || findings.setErrors.length > 0) return 'errored';
  return null;
}

/** How one workspace was read: its runs of the window (null: not listed), each with its findings (null: not read). */
export interface WorkspaceRead {
  workspace: { id: string; name: string };
  runs: Array<{ runId: string; findings: RunFindings | null }> | null;
}

export function policyEvidence(policy: string, reads: readonly WorkspaceRead[]): PolicyEvidence {
  return { policy, workspaces: reads.map((read) => workspaceEvidence(policy, read)) };
}

function workspaceEvidence(policy: string, read: WorkspaceRead): WorkspaceEvidence {
  const runs = (read.runs ?? []).flatMap(({ findings }) => {
    const run = findings === null ? null : policyRun(findings, policy);
    return run === null ? [] : [run];
  });
  runs.sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  return { workspaceId: read.workspace.id, workspaceName: read.workspace.name, latest: runs[0] ?? null, runs, complete: isComplete(read) };
}

export function isComplete(read: WorkspaceRead): boolean {
  return read.runs !== null && read.runs.every(({ findings }) => findings !== null);
}

/**
 * How many of `runs` were created at or after `since` (an ISO 8601 text or epoch milliseconds) with `outcome`
 * (default `passed`): the clean runs a rollout counts since its start.
 */
export function countRuns(runs: readonly EvidenceRun[], since: string | number, outcome: EvidenceOutcome = 'passed'): number {
  const from = typeof since === 'number' ? since : Date.parse(since);
  return runs.filter((run) => run.outcome === outcome && Date.parse(run.createdAt) >= from).length;
}
