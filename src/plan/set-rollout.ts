/**
 * Rollouts of versioned sets: a set whose policy-set.yaml declares `rollout:` holds each policy its config file raises
 * (a level that blocks, stricter than the rollout's start, that the runs in scope do not already show it enforced at)
 * at the start level in the version it uploads, until that policy's own runs meet the rollout; then a version with its
 * declared level is uploaded. The folder stays the truth: the set's digest and files are the folder's as declared, and
 * once every policy is promoted the version uploaded is the folder itself. Where the rollout stands lives in the set's
 * ownership marker (marker.ts), so every runner decides alike. Pure: the clock is `now`, the runs are data.
 */
import { codeDigest } from '../code-content.js';
import type { DeclaredPolicySet, DeclaredState, SetRolloutRecord } from '../declared/types.js';
import { LEVEL_RANK, type EnforcementLevel, type LivePolicySet, type LiveState, type RolloutSpec } from '../model.js';
import { blocks, changeEvidence, type Evidence, type RolloutStatus } from './evidence.js';
import { markerSet, markerSetRollout } from './marker.js';
import { mayPromote, measureRuns, type Progress } from './rollout.js';
import { inScope, scopeAfter, type ScopeIds } from './tightening.js';

/** A versioned set with a rollout, its live set, and what its marker records. */
interface SetWithRollout {
  set: DeclaredPolicySet & { content: NonNullable<DeclaredPolicySet['content']> };
  spec: RolloutSpec;
  current: LivePolicySet | null;
  record: SetRolloutRecord | null;
  /** The policies a rollout may hold: at a level that blocks and is stricter than its start, sorted by name. */
  candidates: Array<{ name: string; level: EnforcementLevel }>;
  digest: string;
}

function withRecords(declared: DeclaredState, live: LiveState): SetWithRollout[] {
  return (declared.policySets ?? []).flatMap((set) => {
    if (set.content === null || set.rollout == null) return [];
    const spec = set.rollout;
    const current = (live.policySets ?? []).find((s) => s.name === set.name) ?? null;
    const candidates = (set.content.levels ?? [])
      .filter((p): p is { name: string; level: EnforcementLevel } => p.level in LEVEL_RANK && blocks(p.level as EnforcementLevel) && LEVEL_RANK[p.level as EnforcementLevel] > LEVEL_RANK[spec.start])
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const digest = codeDigest(JSON.stringify([spec.start, spec.cleanRuns, spec.failingWorkspaces, spec.afterMs, set.content.digest])).slice(0, 16);
    return [{ set: set as SetWithRollout['set'], spec, current, record: markerSetRollout(current?.description ?? null), candidates, digest }];
  });
}

const BLOCKING_LEVELS: readonly EnforcementLevel[] = ['mandatory', 'hard-mandatory', 'soft-mandatory'];

function levelMark(name: string, level: string): string {
  return codeDigest(`${name}\n${level}`).slice(0, 8);
}

/**
 * The marker's record of the levels an uploaded version gives: 8 hex digits of a digest of each policy's name and
 * level, for each at a level that blocks, sorted; null when none blocks.
 */
export function levelMarks(levels: ReadonlyArray<{ name: string; level: string }>): string | null {
  const marks = levels.filter((p) => BLOCKING_LEVELS.includes(p.level as EnforcementLevel)).map((p) => levelMark(p.name, p.level)).sort();
  return marks.length === 0 ? null : marks.join('');
}

/** The level an uploaded version gives `name`, as its marks record it: advisory when it blocks in none of the levels. */
export function markedLevel(name: string, marks: string | null): EnforcementLevel {
  const set = new Set((marks ?? '').match(/[0-9a-f]{8}/g) ?? []);
  return BLOCKING_LEVELS.find((level) => set.has(levelMark(name, level))) ?? 'advisory';
}

/** The candidates the version its marks describe holds below their declared level. */
function heldIn(candidates: ReadonlyArray<{ name: string; level: EnforcementLevel }>, marks: string | null): Set<string> {
  return new Set(candidates.filter((c) => LEVEL_RANK[markedLevel(c.name, marks)] < LEVEL_RANK[c.level]).map((c) => c.name));
}

/** The set's scope after the plan, as ids. */
function setScope(entry: SetWithRollout, declared: DeclaredState): ScopeIds | null {
  return scopeAfter(entry.set.name, entry.current, declared);
}

/**
 * The policies of versioned sets whose rollout is under way (its marker records it, in its current form, with some
 * policy held): the runs a plan reads for them, in the set's scope, since the rollout began.
 */
export function setRolloutsInProgress(declared: DeclaredState, live: LiveState): Array<{ policy: string; scope: ScopeIds; startedAt: number }> {
  return withRecords(declared, live).flatMap((entry) => {
    const { record, digest, candidates } = entry;
    if (record === null || record.digest !== digest || record.state !== 'held') return [];
    const scope = setScope(entry, declared);
    if (scope === null) return [];
    return [...heldIn(candidates, record.enforced)].map((policy) => ({ policy, scope, startedAt: record.startedAt }));
  });
}

/**
 * The declared state with each versioned set's rollout applied: its content's `held` (the levels its upload holds
 * back) and `rolloutRecord` (what its marker must record), with where each held policy stands. `evidence`: the runs
 * read, or null when none were (a held policy then stays held).
 */
export function withSetRollouts(declared: DeclaredState, live: LiveState, evidence: Evidence | null, now: number): { declared: DeclaredState; rollouts: RolloutStatus[] } {
  const rollouts: RolloutStatus[] = [];
  const decided = new Map<string, DeclaredPolicySet>();
  for (const entry of withRecords(declared, live)) {
    const { set, spec, current, record, candidates, digest } = entry;
    const scope = evidence === null ? [] : inScope([setScope(entry, declared)].filter((s): s is ScopeIds => s !== null), evidence.workspaces);
    let started: SetRolloutRecord;
    let held: Set<string>;
    if (record !== null && record.digest === digest) {
      started = record;
      held = heldIn(candidates, record.enforced);
    } else if (record === null && current !== null && markerSet(current.description).content === set.content.digest) {
      // Enforced as declared before it had a rollout: nothing to roll out.
      started = { digest, startedAt: now, state: 'promoted', enforced: null };
      held = new Set();
    } else {
      // A new rollout, or the folder or the block changed: a policy the service already enforces at its declared level
      // (or stricter) is not raised, and a lowered level applies at once; the others are held from now.
      held = record !== null ? heldIn(candidates, record.enforced) : raised(candidates, current, evidence, scope);
      started = { digest, startedAt: now, state: 'held', enforced: null };
      for (const name of [...held].sort()) rollouts.push(status(set.name, name, spec, candidates, started, 'starting', { cleanRuns: 0, failing: [], errored: [], partial: false, inScope: scope.length, evaluated: 0, notEvaluated: scope.length }, now));
    }
    if (started === record) {
      for (const name of [...held].sort()) {
        const progress: Progress = evidence === null
          ? { cleanRuns: 0, failing: [], errored: [], partial: true, inScope: 0, evaluated: 0, notEvaluated: 0 }
          : measureRuns(name, scope, record.startedAt, evidence);
        const promote = mayPromote(spec, record, progress, now);
        rollouts.push(status(set.name, name, spec, candidates, record, promote ? 'promoted' : 'held', progress, now));
        if (promote) held.delete(name);
      }
    }
    const heldLevels = candidates.filter((c) => held.has(c.name)).map((c) => ({ name: c.name, level: spec.start }));
    const uploaded = (set.content.levels ?? []).map((p) => (held.has(p.name) ? { name: p.name, level: spec.start as string } : p));
    const rolloutRecord: SetRolloutRecord = { digest, startedAt: started.startedAt, state: held.size === 0 ? 'promoted' : 'held', enforced: levelMarks(uploaded) };
    decided.set(set.name, { ...set, content: { ...set.content, held: heldLevels }, rolloutRecord });
  }
  if (decided.size === 0) return { declared, rollouts };
  return { declared: { ...declared, policySets: (declared.policySets ?? []).map((s) => decided.get(s.name) ?? s) }, rollouts };
}

/**
 * The candidates a rollout that begins now holds: every one for a new set; otherwise those the latest evaluated runs
 * in scope do not already show at their declared level or a stricter one (plan/evidence.ts decides it, as for any
 * versioned set's new content). With no runs read, every one.
 */
function raised(candidates: ReadonlyArray<{ name: string; level: EnforcementLevel }>, current: LivePolicySet | null, evidence: Evidence | null, scope: readonly string[]): Set<string> {
  if (current === null || evidence === null || candidates.length === 0) return new Set(candidates.map((c) => c.name));
  const said = changeEvidence(evidence, candidates.map((c) => ({ name: c.name, level: c.level, levelBefore: 'unknown' as const })), scope);
  const already = new Set((said.already_enforced ?? []).map((a) => a.policy));
  return new Set(candidates.filter((c) => !already.has(c.name)).map((c) => c.name));
}

function status(setName: string, policy: string, spec: RolloutSpec, candidates: ReadonlyArray<{ name: string; level: EnforcementLevel }>, record: SetRolloutRecord, state: RolloutStatus['state'], progress: Progress, now: number): RolloutStatus {
  const readyAt = record.startedAt + spec.afterMs;
  const level = candidates.find((c) => c.name === policy)!.level;
  return {
    policy, set: setName, state, start: spec.start, level, startedAt: record.startedAt, readyAt, waiting: now < readyAt,
    neededRuns: spec.cleanRuns, allowedFailing: spec.failingWorkspaces, ...progress,
  };
}
