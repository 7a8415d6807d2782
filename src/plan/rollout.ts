/**
 * Rollouts: a policy with a `rollout:` block is applied at its start level until the runs of the workspaces in scope
 * are clean, then at its declared level. Where a rollout stands lives in the policy's ownership marker (marker.ts), so
 * the daemon and a one-shot CI run that share no state dir decide alike. Applied to the declared state before pairing:
 * each such policy's level becomes the level its rollout applies now. Pure: the clock is `now`, the runs are data.
 */
import { codeDigest } from '../code-content.js';
import type { DeclaredPolicy, DeclaredState } from '../declared/types.js';
import type { EnforcementLevel, LivePolicy, LiveState, RolloutRecord, RolloutSpec } from '../model.js';
import { cleanSince, latestEvaluated, runsOf, speaksForApply, unsaid, type Evidence, type RolloutStatus } from './evidence.js';

export type { RolloutStatus };
import { markerRollout } from './marker.js';
import { inScope, policyScopes } from './tightening.js';

/** Which rollout a policy is in: its block, its declared level and its code; any change of them starts it again. */
export function rolloutDigest(policy: DeclaredPolicy, spec: RolloutSpec): string {
  return codeDigest(JSON.stringify([spec.start, spec.cleanRuns, spec.failingWorkspaces, spec.afterMs, policy.enforcementLevel, policy.codeDigest])).slice(0, 16);
}

/** A declared policy's live one: the same name and kind (the one rule every stage matches them by). */
export function livePolicyOf(policy: Pick<DeclaredPolicy, 'name' | 'kind'>, live: LiveState): LivePolicy | null {
  return live.policies.find((p) => p.name === policy.name && p.kind === policy.kind) ?? null;
}

/** The declared policies with a rollout, each with its live policy and the record its marker holds. */
function withRecords(declared: DeclaredState, live: LiveState) {
  return declared.policies.flatMap((policy) => {
    if (policy.rollout === undefined || policy.rollout === null) return [];
    const current = livePolicyOf(policy, live);
    return [{ policy, spec: policy.rollout, current, record: markerRollout(current?.description ?? null) }];
  });
}

/**
 * The policies whose rollout is under way (not promoted in its current form): the only rollouts whose runs a plan
 * reads. A rollout that starts with this plan needs none: nothing ran since it began.
 */
export function rolloutsInProgress(declared: DeclaredState, live: LiveState): string[] {
  return withRecords(declared, live)
    .filter(({ policy, spec, record }) => record !== null && record.state === 'held' && record.digest === rolloutDigest(policy, spec))
    .map(({ policy }) => policy.name);
}

/**
 * The declared state with each rollout applied: a policy's level is its start level while its rollout holds, and
 * `rolloutRecord` what its marker must record; with where each rollout stands. `evidence`: the runs read, or null
 * when none were (a held rollout then stays held).
 */
export function withRollouts(declared: DeclaredState, live: LiveState, evidence: Evidence | null, now: number): { declared: DeclaredState; rollouts: RolloutStatus[] } {
  const rollouts: RolloutStatus[] = [];
  const decided = new Map<string, DeclaredPolicy>();
  for (const { policy, spec, current, record } of withRecords(declared, live)) {
    const digest = rolloutDigest(policy, spec);
    if (record?.digest === digest && record.state === 'promoted') {
      decided.set(policy.name, { ...policy, rolloutRecord: record });
    } else if (record === null && current !== null && current.enforcementLevel === policy.enforcementLevel && current.codeDigest === policy.codeDigest) {
      // Already enforced at its level with this code before it had a rollout: nothing to roll out.
      decided.set(policy.name, { ...policy, rolloutRecord: { digest, startedAt: now, state: 'promoted' } });
    } else if (record?.digest !== digest) {
      const started: RolloutRecord = { digest, startedAt: now, state: 'held' };
      rollouts.push(status(policy, spec, started, 'starting', { cleanRuns: 0, failing: [], errored: [], partial: false }, now));
      decided.set(policy.name, { ...policy, enforcementLevel: spec.start, rolloutRecord: started });
    } else {
      const progress = evidence === null ? { cleanRuns: 0, failing: [], errored: [], partial: true } : measure(policy, current, record, evidence, declared, live);
      const promote = mayPromote(spec, record, progress, now);
      rollouts.push(status(policy, spec, record, promote ? 'promoted' : 'held', progress, now));
      decided.set(policy.name, promote ? { ...policy, rolloutRecord: { ...record, state: 'promoted' } } : { ...policy, enforcementLevel: spec.start, rolloutRecord: record });
    }
  }
  if (decided.size === 0) return { declared, rollouts };
  return { declared: { ...declared, policies: declared.policies.map((p) => decided.get(p.name) ?? p) }, rollouts };
}

export type Progress = Pick<RolloutStatus, 'cleanRuns' | 'failing' | 'errored' | 'partial' | 'inScope' | 'evaluated' | 'notEvaluated'>;

/**
 * Whether a held rollout promotes now: every condition holds, on whole evidence. Missing evidence never promotes: a
 * partial read, or a workspace whose latest run could not say (a check, evaluation or stage errored, unreachable or
 * canceled; a check with only counts) holds it. `cleanRuns` counts workspaces, so `clean-runs: N` asks for clean
 * runs in N distinct workspaces in scope.
 */
export function mayPromote(spec: RolloutSpec, record: RolloutRecord, progress: Progress, now: number): boolean {
  if (progress.partial) return false;
  if (progress.errored.length > 0) return false;
  if (progress.cleanRuns < spec.cleanRuns) return false;
  if (progress.failing.length > spec.failingWorkspaces) return false;
  if (now - record.startedAt < spec.afterMs) return false;
  return true;
}

/**
 * The runs in scope of a rollout under way: the workspaces with a clean run since it began (each counts once: one
 * workspace never vouches for another), failing workspaces, those whose latest run since it began could not say, and
 * how many evaluated the policy at all. Only runs that could apply count (plan/evidence.ts).
 */
function measure(policy: DeclaredPolicy, current: LivePolicy | null, record: RolloutRecord, evidence: Evidence, declared: DeclaredState, live: LiveState): Progress {
  const scope = inScope(policyScopes({ declared: { policySets: policy.policySets }, live: current }, declared, live), evidence.workspaces);
  return measureRuns(policy.name, scope, record.startedAt, evidence);
}

/** The runs of `policy` in the workspaces `scope` (ids) since `startedAt`, as `measure` counts them: one home for a versioned set's policies too. */
export function measureRuns(name: string, scope: readonly string[], startedAt: number, evidence: Evidence): Progress {
  const record = { startedAt };
  const policy = { name };
  const names = new Map(evidence.workspaces.map((w) => [w.id, w.name]));
  let cleanRuns = 0;
  let evaluated = 0;
  const failing: string[] = [];
  const errored: string[] = [];
  for (const id of scope) {
    const all = runsOf(evidence, policy.name, id);
    if (cleanSince(all, record.startedAt)) cleanRuns += 1;
    const latestEvaluatedRun = latestEvaluated(all);
    if (latestEvaluatedRun !== null) evaluated += 1;
    if (latestEvaluatedRun?.outcome === 'failed') failing.push(names.get(id) ?? id);
    const since = all.filter((run) => run.at >= record.startedAt && speaksForApply(run));
    const latest = since.reduce<(typeof since)[number] | null>((a, b) => (a === null || b.at > a.at ? b : a), null);
    if (latest !== null && unsaid(latest)) errored.push(names.get(id) ?? id);
  }
  return {
    cleanRuns, failing: failing.sort(), errored: errored.sort(), partial: evidence.partial, inScope: scope.length, evaluated, notEvaluated: scope.length - evaluated,
  };
}

function status(policy: DeclaredPolicy, spec: RolloutSpec, record: RolloutRecord, state: RolloutStatus['state'], progress: Progress, now: number): RolloutStatus {
  const readyAt = record.startedAt + spec.afterMs;
  return {
    policy: policy.name, state, start: spec.start, level: policy.enforcementLevel, startedAt: record.startedAt, readyAt, waiting: now < readyAt,
    neededRuns: spec.cleanRuns, allowedFailing: spec.failingWorkspaces, ...progress,
  };
}
