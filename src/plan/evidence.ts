/**
 * Evidence: what the runs of the workspaces in scope say of a policy, handed to the planner as plain data by the stage
 * that reads it (live/evidence-stage.ts, through live/run-evidence.ts), and what a plan says of it. Pure: no I/O, no
 * clock. Only a run that could apply says whether a workspace passes: a speculative (plan-only) or refresh-only run,
 * and a destroy run, never make a workspace passing nor count as clean, and a passing one never hides a failing
 * apply; a failing speculative plan is shown apart, as a warning.
 */
import { LEVEL_RANK, type EnforcementLevel, type PolicyRunOutcome, type WorkspaceTag } from '../model.js';
import { byCodeUnit } from '../order.js';

export interface EvidenceRun {
  /** When the run was created, in ms since the epoch: "since the rollout began" counts the runs created since. */
  at: number;
  outcome: PolicyRunOutcome;
  /** The level the evaluation reported for the policy (`hard-mandatory`, …, as sent); absent or null: not known. */
  level?: string | null;
  /** false: a run that cannot apply (speculative plan-only, refresh-only); absent: one that could. */
  applies?: boolean;
  /** true: a destroy run; absent: not one. */
  destroy?: boolean;
}

/** Whether a run speaks for what a workspace applies: one that could apply, and not a destroy. */
export function speaksForApply(run: EvidenceRun): boolean {
  return run.applies !== false && run.destroy !== true;
}

/** A run that evaluated the policy and could apply: the runs whose outcomes make a workspace passing or failing. */
function evaluatedApply(run: EvidenceRun): boolean {
  return (run.outcome === 'passed' || run.outcome === 'failed') && speaksForApply(run);
}

/** A run that says the policy could not be evaluated (or, a check with only counts, not for which policy). */
export function unsaid(run: EvidenceRun): boolean {
  return run.outcome !== 'passed' && run.outcome !== 'failed';
}

/** Whether `runs` hold a clean run created at or after `since` (ms): the one rule of what a rollout counts as clean. */
export function cleanSince(runs: readonly EvidenceRun[], since: number): boolean {
  return runs.some((run) => run.at >= since && run.outcome === 'passed' && speaksForApply(run));
}

/** The newest speculative run that failed, when it is newer than the latest run that could apply and evaluated the policy. */
export function failingSpeculative(runs: readonly EvidenceRun[]): EvidenceRun | null {
  const latest = latestEvaluated(runs);
  let found: EvidenceRun | null = null;
  for (const run of runs) {
    if (run.applies !== false || run.outcome !== 'failed' || (latest !== null && run.at <= latest.at)) continue;
    if (found === null || run.at > found.at) found = run;
  }
  return found;
}

export interface EvidenceWorkspace {
  id: string;
  name: string;
  /** `prj-` id of its project; null when unknown. */
  projectId: string | null;
  /** Its tags, read when a set in scope is scoped by tags; absent otherwise. */
  tags?: WorkspaceTag[];
}

/** What the evidence stage read, for the planner. */
export interface Evidence {
  /** How far back the read looked, in words for a plan (`30 days`). */
  window: string;
  /** The organization's workspaces, against which set scopes are resolved. */
  workspaces: readonly EvidenceWorkspace[];
  /** By policy name, then by workspace id: the runs that evaluated the policy (or tried to), any order. A workspace absent: none. */
  runs: Readonly<Record<string, Readonly<Record<string, readonly EvidenceRun[]>>>>;
  /** The read stopped before it read everything it was asked (its budget ran out, or a read failed): nothing promotes on it. */
  partial: boolean;
}

/**
 * What a plan says of a change that tightens enforcement (the JSON plan's `evidence`): over the workspaces in scope
 * of its policies, those whose latest evaluated run fails one of them (by name), pass them, or never evaluated them.
 */
export interface ChangeEvidence {
  /** The policies the change tightens, whose runs were read. */
  policies: string[];
  in_scope: number;
  evaluated: number;
  /** Names of the workspaces whose latest evaluated run fails, sorted. */
  failing: string[];
  passing: number;
  not_evaluated: number;
  window: string;
  partial: boolean;
  /** The failing workspaces whose runs the change would block (it makes a policy mandatory); empty when none. */
  blocking: string[];
  /**
   * A versioned set's new content, whose levels before are not known: its policies at a level that blocks that the
   * latest evaluated runs in scope already show at that level (or a stricter one), so the change does not raise them
   * and blocks no more runs for them than today. Absent: no such policy.
   */
  already_enforced?: Array<{ policy: string; level: string }>;
  /** Its policies at a level that blocks that no run in scope shows at any level: taken as raised. Absent: none. */
  level_unknown?: string[];
  /**
   * Workspaces (names, sorted) whose newest speculative (plan-only) run fails a policy, newer than their latest run
   * that could apply: a warning; a speculative plan never makes a workspace failing or passing. Absent: none.
   */
  failing_speculative?: string[];
  /**
   * Workspaces (names, sorted) whose latest run could not say: a policy check, evaluation or task stage that ended
   * errored, unreachable or canceled, or a policy check that failed with only counts, not which policy. Absent: none.
   */
  unsaid?: string[];
  /** A change that tightens several policies: each raised policy's own evidence (plan/policy-evidence.ts). Absent: one policy. */
  by_policy?: PolicyEvidence[];
}

/** One raised policy's evidence (the JSON plan's `evidence.by_policy[]`). */
export interface PolicyEvidence {
  policy: string;
  /** The level the change gives it. */
  level: EnforcementLevel;
  /** Names of the workspaces in scope whose latest evaluated run fails it, sorted. */
  failing: string[];
  /** Workspaces in scope whose latest evaluated run passes it. */
  passing: number;
  /** Workspaces in scope with no run that evaluated it within the window. */
  not_evaluated: number;
  /** Its level blocks and it fails somewhere: the change blocks its failing workspaces for it. */
  blocking: boolean;
}

/** A policy a change tightens, with the level it will have; `levelBefore: 'unknown'`: a versioned set's content, whose level before is not known. */
export interface TightenedPolicy {
  name: string;
  level: EnforcementLevel;
  levelBefore?: 'unknown';
}

/** Whether a level stops a run that fails the policy (soft-mandatory may be overridden, but still stops it). */
export function blocks(level: EnforcementLevel): boolean {
  return LEVEL_RANK[level] > 0;
}

/** The latest run of `runs` that could apply and evaluated the policy (passed or failed), or null when none did. */
export function latestEvaluated(runs: readonly EvidenceRun[]): EvidenceRun | null {
  let latest: EvidenceRun | null = null;
  for (const run of runs) {
    if (!evaluatedApply(run)) continue;
    if (latest === null || run.at > latest.at) latest = run;
  }
  return latest;
}

/** The runs of one policy in one workspace. */
export function runsOf(evidence: Evidence, policy: string, workspaceId: string): readonly EvidenceRun[] {
  return evidence.runs[policy]?.[workspaceId] ?? [];
}

/**
 * The evidence of a change tightening `policies` (each with the level it will have) in the workspaces `inScope`
 * (ids): a workspace fails when its latest evaluated run fails any of them, passes when it passes all it evaluated.
 */
export function changeEvidence(evidence: Evidence, policies: readonly TightenedPolicy[], inScope: readonly string[]): ChangeEvidence {
  const names = new Map(evidence.workspaces.map((w) => [w.id, w.name]));
  const before = levelsBefore(evidence, policies, inScope);
  const failing: string[] = [];
  const blocking: string[] = [];
  const speculative: string[] = [];
  const notSaid: string[] = [];
  let passing = 0;
  let evaluated = 0;
  for (const id of inScope) {
    const name = names.get(id) ?? id;
    if (policies.some((p) => failingSpeculative(runsOf(evidence, p.name, id)) !== null)) speculative.push(name);
    if (policies.some((p) => latestUnsaid(runsOf(evidence, p.name, id)))) notSaid.push(name);
    const latest = policies.map((p) => ({ name: p.name, level: p.level, run: latestEvaluated(runsOf(evidence, p.name, id)) })).filter((l) => l.run !== null);
    if (latest.length === 0) continue;
    evaluated += 1;
    const failed = latest.filter((l) => l.run!.outcome === 'failed');
    if (failed.length === 0) {
      passing += 1;
      continue;
    }
    failing.push(name);
    if (failed.some((l) => blocks(l.level) && !before.already.some((a) => a.policy === l.name))) blocking.push(name);
  }
  return {
    policies: policies.map((p) => p.name), in_scope: inScope.length, evaluated, failing: failing.sort(byCodeUnit), passing,
    not_evaluated: inScope.length - evaluated, window: evidence.window, partial: evidence.partial, blocking: blocking.sort(byCodeUnit),
    ...(before.already.length === 0 ? {} : { already_enforced: before.already }),
    ...(before.unknown.length === 0 ? {} : { level_unknown: before.unknown }),
    ...(speculative.length === 0 ? {} : { failing_speculative: speculative.sort(byCodeUnit) }),
    ...(notSaid.length === 0 ? {} : { unsaid: notSaid.sort(byCodeUnit) }),
  };
}

/** Whether the newest run that could apply could not say (errored, unreachable, canceled, or counts only). */
export function latestUnsaid(runs: readonly EvidenceRun[]): boolean {
  let newest: EvidenceRun | null = null;
  for (const run of runs) if (speaksForApply(run) && (newest === null || run.at > newest.at)) newest = run;
  return newest !== null && unsaid(newest);
}

/**
 * Of the policies whose level before is not known (a versioned set's new content), at a level that blocks: those the
 * latest evaluated run of every workspace in scope that evaluated them shows at that level or a stricter one
 * (`already`: not raised), and those no run in scope shows at any level (`unknown`: taken as raised). One that some
 * latest run shows at a softer level is raised, and is in neither.
 */
function levelsBefore(evidence: Evidence, policies: readonly TightenedPolicy[], inScope: readonly string[]): { already: Array<{ policy: string; level: string }>; unknown: string[] } {
  const already: Array<{ policy: string; level: string }> = [];
  const unknown: string[] = [];
  for (const p of policies) {
    if (p.levelBefore !== 'unknown' || !blocks(p.level)) continue;
    const shown = inScope.flatMap((id) => {
      const level = latestEvaluated(runsOf(evidence, p.name, id))?.level;
      return typeof level === 'string' ? [level] : [];
    });
    if (shown.length === 0) unknown.push(p.name);
    else if (shown.every((level) => level in LEVEL_RANK && LEVEL_RANK[level as EnforcementLevel] >= LEVEL_RANK[p.level])) already.push({ policy: p.name, level: p.level });
  }
  return { already, unknown };
}

/** Where one rollout stands after this plan: what the plan shows, `/status` lists and the metrics count. */
export interface RolloutStatus {
  policy: string;
  /** A policy of a versioned set's config file, held by the set's rollout: the set's name. Absent: a policy of the repo. */
  set?: string;
  /** `starting`: begins with this plan; `held`: at its start level; `promoted`: this plan applies the declared level. */
  state: 'starting' | 'held' | 'promoted';
  start: EnforcementLevel;
  level: EnforcementLevel;
  startedAt: number;
  /** No promotion before this time (ms since the epoch). */
  readyAt: number;
  /** The plan was made before `readyAt`. */
  waiting: boolean;
  /** Workspaces in scope with a clean run since the rollout began: each workspace counts once. */
  cleanRuns: number;
  neededRuns: number;
  /** Workspaces in scope, those whose runs evaluated the policy in the window, and those that never did. Absent: not read. */
  inScope?: number;
  evaluated?: number;
  notEvaluated?: number;
  /** Workspaces (names) whose latest evaluated run fails the policy, and how many may. */
  failing: string[];
  allowedFailing: number;
  /**
   * Workspaces (names) whose latest run since the rollout began could not say: its check, evaluation or task stage
   * ended errored, unreachable or canceled, or its check failed with only counts.
   */
  errored: string[];
  /** The evidence was not read, or not whole. */
  partial: boolean;
}
