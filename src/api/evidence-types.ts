/**
 * The evidence a plan reads before it tightens a policy's enforcement: for each policy asked about, each workspace in
 * scope, and the runs of the window that evaluated it. Plain data (strings, numbers, booleans, arrays, objects), so
 * that it serialises whole into a JSON plan and compares with `deepEqual`.
 */

import type { PolicyRunOutcome, RunKind } from '../model.js';

export type { PolicyRunOutcome };

/** One run read that evaluated the policy (or said it could not). */
export interface ReadPolicyRun {
  runId: string;
  /** ISO 8601, as the service sent it. */
  createdAt: string;
  outcome: PolicyRunOutcome;
  /** What kind of run it was (plan-only, destroy, …). */
  kind: RunKind;
  /** The level the evaluation reported for the policy (`advisory`, `mandatory`, `soft-mandatory`, …); null when no outcome named it. */
  enforcementLevel: string | null;
  /** The policy sets whose outcomes named it, in the order read. */
  policySets: string[];
  /** false: the run was still under way (its outcome may still change; it is read again next time). */
  finished: boolean;
}

/** One workspace's runs that evaluated one policy. */
export interface WorkspaceEvidence {
  workspaceId: string;
  workspaceName: string;
  /** The newest run that evaluated it (`runs[0]`), or null: none of the runs read did. */
  latest: ReadPolicyRun | null;
  /** Every run read that evaluated it, newest first. */
  runs: ReadPolicyRun[];
  /** false: some runs of the window were not read (the budget ran out), so `runs` may lack some. */
  complete: boolean;
}

/** One policy's evidence: every workspace in scope, in the order given. */
export interface PolicyEvidence {
  policy: string;
  workspaces: WorkspaceEvidence[];
}

/** How far the reading of one workspace got. */
export interface WorkspaceReading {
  workspaceId: string;
  workspaceName: string;
  /** Runs of the window the list answered; null when the list was not read. */
  runsInWindow: number | null;
  /** Of those, the runs whose evaluations were read (from the service or the cache). */
  runsRead: number;
  complete: boolean;
}

/** What `readEvidence` answers. */
export interface EvidenceReadout {
  organization: string;
  /** The window: runs created at or after `from` (ISO 8601) until `to`, `ms` long. */
  window: { from: string; to: string; ms: number };
  /** In the order asked. */
  policies: PolicyEvidence[];
  /** In the order given. */
  workspaces: WorkspaceReading[];
  /** true: the request budget (of requests or of time) ran out before every run of the window was read: `isPartial`. */
  partial: boolean;
  /** Requests sent (each page one), and the budget they were counted against. */
  requests: number;
  budget: number;
  /** Runs whose findings came from the cache, costing no request. */
  cachedRuns: number;
}

/** What the reader keeps of one run, whether read now or from the cache; every policy's outcomes, not only those asked. */
export interface RunFindings {
  runId: string;
  workspaceId: string;
  createdAt: string;
  status: string;
  /** The run reached a final status and every evaluation and check ended: nothing of it changes any more. */
  finished: boolean;
  kind: RunKind;
  evaluations: Array<{ id: string; status: string; policyKind: string }>;
  /** Every policy named, by its evaluation's set outcomes or its check's `sentinel` detail (`enforcementLevel` '' when not said). */
  outcomes: Array<{ policy: string; policySet: string; status: string; enforcementLevel: string; via: 'check' | 'evaluation'; kind: string }>;
  /** Sets whose outcome carried an error (or an entry naming no policy that did not pass). */
  setErrors: Array<{ policySet: string; error: string }>;
  /** Its policy checks: status, whether they gave per-policy detail, how many policies failed by their counts. */
  checks: Array<{ id: string; status: string; detail: boolean; failed: number }>;
  /** Its task stages that ended errored, unreachable or canceled with no evaluation. */
  stages: Array<{ stage: string; status: string }>;
}
