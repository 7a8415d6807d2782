/**
 * Which changes of a plan tighten enforcement, and where: a policy's level rises, a policy joins a set, a set is created
 * or its scope widens (global, workspaces or projects added, exclusions removed), a set is made not overridable. Each names the policies it tightens
 * and the scopes of the sets they will be in, against which the evidence stage resolves the workspaces to read. Pure.
 */
import type { DeclaredState } from '../declared/types.js';
import { LEVEL_RANK, tagSelection, type EnforcementLevel, type LivePolicySet, type LiveState, type TagMatch, type TagSelector } from '../model.js';
import { byCodeUnit } from '../order.js';
import { blocks, changeEvidence, type Evidence, type EvidenceWorkspace, type TightenedPolicy } from './evidence.js';
import { withPolicyEvidence } from './policy-evidence.js';
import type { Change, FieldChange, PolicyChange, PolicySetChange } from './types.js';

/** A set's scope as it will be after the plan: ids. */
export interface ScopeIds {
  global: boolean;
  workspaceIds: readonly string[];
  projectIds: readonly string[];
  workspaceExclusionIds: readonly string[];
  projectExclusionIds: readonly string[];
  /** Its tag selectors and how its inclusions combine; absent: none. */
  tags?: { selectors: readonly TagSelector[]; match: TagMatch };
}

export interface Tightening {
  resource: 'policy' | 'policy-set';
  name: string;
  /** The policies it tightens, each with the level it will have (and, for a versioned set's new content, not the level before). */
  policies: TightenedPolicy[];
  /** The scopes of the sets the policies will be in. */
  scopes: ScopeIds[];
}

/** The changes of `changes` that tighten enforcement; `declared` with its names resolved into ids (plan/names.ts). */
export function tightenings(changes: readonly Change[], declared: DeclaredState, live: LiveState): Tightening[] {
  const found: Tightening[] = [];
  for (const change of changes) {
    const tightening = change.resource === 'policy' ? policyTightening(change, declared, live) : change.resource === 'policy-set' ? setTightening(change, declared, live) : null;
    if (tightening !== null) found.push(tightening);
  }
  return found;
}

/** The workspaces (ids, sorted) that any of `scopes` holds. */
export function inScope(scopes: readonly ScopeIds[], workspaces: readonly EvidenceWorkspace[]): string[] {
  const byTags = (w: EvidenceWorkspace, s: ScopeIds) => (s.tags === undefined ? 'none' : tagSelection(s.tags.selectors, s.tags.match, w.tags ?? []));
  const held = (w: EvidenceWorkspace, s: ScopeIds) =>
    !s.workspaceExclusionIds.includes(w.id) && !(w.projectId !== null && s.projectExclusionIds.includes(w.projectId)) && byTags(w, s) !== 'excluded' &&
    (s.global || byTags(w, s) === 'included' || s.workspaceIds.includes(w.id) || (w.projectId !== null && s.projectIds.includes(w.projectId)));
  return workspaces.filter((w) => scopes.some((s) => held(w, s))).map((w) => w.id).sort();
}

function rises(field: FieldChange | undefined): boolean {
  if (field === undefined || typeof field.after !== 'string') return false;
  const before = typeof field.before === 'string' ? LEVEL_RANK[field.before as EnforcementLevel] ?? 0 : 0;
  return (LEVEL_RANK[field.after as EnforcementLevel] ?? 0) > before;
}

/** A set's tags widen its scope when an inclusion is added or an exclusion (`!key`) removed. */
function tagsWiden(field: FieldChange | undefined): boolean {
  const side = (v: FieldChange['before'] | undefined): string[] => (Array.isArray(v) ? (v as string[]) : []);
  const before = side(field?.before);
  const after = side(field?.after);
  return after.some((t) => !t.startsWith('!') && !before.includes(t)) || before.some((t) => t.startsWith('!') && !after.includes(t));
}

function added(field: FieldChange | undefined): boolean {
  if (field === undefined || !Array.isArray(field.after)) return false;
  const before: readonly unknown[] = Array.isArray(field.before) ? field.before : [];
  return field.after.some((id) => !before.includes(id));
}

/** The scopes of the sets a policy will be in (by id, or by the name of a set the plan creates). */
export function policyScopes(change: { declared: { policySets: readonly string[] | null } | null; live: { policySetIds: readonly string[] } | null }, declared: DeclaredState, live: LiveState): ScopeIds[] {
  const sets = change.declared?.policySets ?? change.live?.policySetIds ?? [];
  return sets.flatMap((entry) => {
    const current = (live.policySets ?? []).find((s) => s.id === entry || s.name === entry);
    const scope = scopeAfter(current?.name ?? entry, current ?? null, declared);
    return scope === null ? [] : [scope];
  });
}

function policyTightening(change: PolicyChange, declared: DeclaredState, live: LiveState): Tightening | null {
  if (change.declared === null) return null;
  const joins = change.action === 'create' ? (change.declared.policySets ?? []).length > 0 : added(change.fields['policy-sets']);
  if (!joins && !rises(change.fields['enforcement-level'])) return null;
  return { resource: 'policy', name: change.name, policies: [{ name: change.name, level: change.declared.enforcementLevel }], scopes: policyScopes(change, declared, live) };
}

function setTightening(change: PolicySetChange, declared: DeclaredState, live: LiveState): Tightening | null {
  if (change.declared === null) return null;
  const f = change.fields;
  const widens = change.action !== 'update' || f['global']?.after === true || added(f['workspaces']) || added(f['projects']) ||
    removedIds(f['workspace-exclusions']) || removedIds(f['project-exclusions']) || tagsWiden(f['tags']);
  const content = change.declared.content;
  const closes = closesOverride(f['overridable']);
  if (!widens && !closes && (content === null || f['content'] === undefined)) return null;
  const scope = scopeAfter(change.name, change.live, declared);
  const all = content === null ? members(change, declared, live) : versionedPolicies(content.levels ?? [], widens || closes);
  // A set no longer overridable tightens its members at the levels that block: their failures can no longer be overridden.
  const policies = closes && !widens ? all.filter((p) => blocks(p.level)) : all;
  if (scope === null || policies.length === 0) return null;
  return { resource: 'policy-set', name: change.name, policies, scopes: [scope] };
}

/** `overridable: true -> false`: every failure of the set's mandatory policies becomes a block nobody can override. */
function closesOverride(field: FieldChange | undefined): boolean {
  return field !== undefined && field.before === true && field.after === false;
}

/**
 * A versioned set's policies a change tightens: all of them when its scope widens; on a new content, those at a level
 * that blocks, whose levels before are not known (the evidence says which its runs already show at that level).
 */
function versionedPolicies(levels: ReadonlyArray<{ name: string; level: string }>, widens: boolean): TightenedPolicy[] {
  const known = levels.filter((p): p is { name: string; level: EnforcementLevel } => p.level in LEVEL_RANK);
  return known.filter((p) => widens || blocks(p.level)).map((p) => ({ name: p.name, level: p.level, ...(widens ? {} : { levelBefore: 'unknown' as const }) }));
}

function removedIds(field: FieldChange | undefined): boolean {
  return field !== undefined && added({ before: field.after, after: field.before });
}

/** A YAML set's members after the plan: declared policies that name it, and live ones it holds whose sets are not managed. */
function members(change: PolicySetChange, declared: DeclaredState, live: LiveState): Array<{ name: string; level: EnforcementLevel }> {
  const keys = [change.name, ...(change.id === null ? [] : [change.id])];
  const named = declared.policies.filter((p) => p.policySets?.some((s) => keys.includes(s)) === true);
  const managed = new Set(declared.policies.filter((p) => p.policySets !== null).map((p) => p.name));
  const held = change.id === null ? [] : live.policies.filter((p) => p.policySetIds.includes(change.id!) && !managed.has(p.name) && !named.some((d) => d.name === p.name));
  const levelOf = new Map(declared.policies.map((p) => [p.name, p.enforcementLevel]));
  return [...named.map((p) => ({ name: p.name, level: p.enforcementLevel })), ...held.map((p) => ({ name: p.name, level: levelOf.get(p.name) ?? p.enforcementLevel }))]
    .sort((a, b) => byCodeUnit(a.name, b.name));
}

/** A set's scope after the plan: its declaration's lists where it manages them, the live set's elsewhere. */
export function scopeAfter(name: string, current: LivePolicySet | null, declared: DeclaredState): ScopeIds | null {
  const set = (declared.policySets ?? []).find((s) => s.name === name);
  if (set === undefined) {
    return current === null ? null : {
      global: current.global, workspaceIds: current.workspaceIds, projectIds: current.projectIds,
      workspaceExclusionIds: current.workspaceExclusionIds, projectExclusionIds: current.projectExclusionIds, ...liveTags(current),
    };
  }
  return {
    global: set.global,
    workspaceIds: set.scope.workspaces ?? current?.workspaceIds ?? [],
    projectIds: set.scope.projects ?? current?.projectIds ?? [],
    workspaceExclusionIds: set.scope.workspaceExclusions ?? current?.workspaceExclusionIds ?? [],
    projectExclusionIds: set.scope.projectExclusions ?? current?.projectExclusionIds ?? [],
    ...(set.tags != null ? { tags: set.tags } : current === null ? {} : liveTags(current)),
  };
}

/** A live set's tag selectors as a scope holds them. */
function liveTags(set: LivePolicySet): Pick<ScopeIds, 'tags'> {
  return (set.tagSelectors ?? []).length === 0 ? {} : { tags: { selectors: set.tagSelectors!, match: set.tagMatch ?? 'any' } };
}

/**
 * Each change of `plan` that `found` names (the tightenings of the plan before its rollouts held any level: a rollout
 * that starts shows whom its level would block), with what `evidence` says of it; the plan as it was when none was read.
 */
export function withEvidence<P extends { changes: Change[] }>(plan: P, tightened: readonly Tightening[], evidence: Evidence | null): P {
  if (evidence === null) return plan;
  const found = new Map(tightened.map((t) => [`${t.resource}\0${t.name}`, t]));
  if (found.size === 0) return plan;
  const changes = plan.changes.map((change) => {
    const t = found.get(`${change.resource}\0${change.name}`);
    if (t === undefined) return change;
    const scope = inScope(t.scopes, evidence.workspaces);
    return { ...change, evidence: withPolicyEvidence(changeEvidence(evidence, t.policies, scope), evidence, t.policies, scope) };
  });
  return { ...plan, changes };
}
