/**
 * Saved plans (`--dry-run --out FILE`, `--reconcile --plan FILE`): what a plan must record so that applying it later
 * does exactly what was reviewed, or nothing. Each change records a fingerprint of the live resource it was planned
 * against and of the declaration it applies. A saved plan is input, never trusted as written: applying it plans the
 * same repo against the live state again and refuses the whole plan unless each saved change is still exactly so and
 * the plan made now holds the identical change (`checkSavedChanges`). Pure: no I/O.
 */
import {
  agentFingerprint, declaredPolicyFingerprint, declaredPoolFingerprint, type Fingerprint, fingerprints, policyFingerprint, poolFingerprint,
} from './fingerprints.js';
import type { Pair, Pairing } from './pairs.js';
import { liveAgentRef, livePolicyRef, livePoolRef, policySpec, poolSpec } from './refs.js';
import { plainFields } from './plain-fields.js';
import type { Change, ChangeAction, FieldChange, ResourceType } from './types.js';

export const SAVED_PLAN_VERSION = '1';

export type { Fingerprint } from './fingerprints.js';

/** One change as saved: the JSON plan's fields, plus what the apply needs and the fingerprints. */
export interface SavedChange {
  resource: ResourceType;
  name: string;
  id: string | null;
  action: ChangeAction;
  reason: string;
  fields: Record<string, FieldChange>;
  /** Policy changes: whether code is uploaded, whether the description is rewritten to carry the marker. */
  upload_code?: boolean;
  adopt_marker?: boolean;
  /** Agent clean-ups: the pool the agent belongs to. */
  pool?: string;
  /** The live resource the change was planned against; null for a creation (nothing of that name existed). */
  live: Fingerprint | null;
  /** The declaration the change applies; null for deletions. */
  declared: Fingerprint | null;
}

export interface SavedSource {
  name: string;
  organization: string;
  revision: string | null;
  /** null when no plan could be made; such a saved plan cannot be applied. */
  changes: SavedChange[] | null;
  warnings: string[];
  errors: string[];
}

export interface SavedPlan {
  saved_plan_version: string;
  sources: SavedSource[];
}

export function savedChange(change: Change, fields: Record<string, FieldChange>): SavedChange {
  const base = { resource: change.resource, name: change.name, id: change.id, action: change.action, reason: change.reason, fields };
  const { live, declared } = fingerprints(change);
  if (change.resource === 'policy') return { ...base, upload_code: change.uploadCode, adopt_marker: change.adoptMarker, live, declared };
  if (change.resource === 'agent-pool') return { ...base, live, declared };
  return { ...base, pool: change.poolName, live, declared };
}

export type Resolved = { changes: Change[]; refused: [] } | { changes: null; refused: string[] };

/**
 * The saved changes of one source checked against a plan made now (`fresh`, of the same declared repo against the
 * live state now, with the same options): each must be exactly as it was planned (its live resource and declaration
 * unchanged), and the plan made now must hold the identical change (same action, id, fields and fingerprints), which
 * means ownership, prune and the live state (that id has that name) allow it. The changes applied are then those of
 * the fresh plan, so a saved plan and a new one go through one apply. Any difference refuses the whole saved plan.
 */
export function checkSavedChanges(saved: readonly SavedChange[], fresh: readonly Change[], pairing: Pairing): Resolved {
  const refused: string[] = [];
  const changes = new Set<Change>();
  const freshByKey = new Map(fresh.map((change) => [changeKey(change), change]));
  for (const change of saved) {
    const what = `${change.action} ${change.resource} "${change.name}"`;
    const stale = staleness(change, pairing);
    const match = freshByKey.get(changeKey(change));
    if (stale !== null) refused.push(`stale: ${what}: ${stale}`);
    else if (match === undefined || changes.has(match)) refused.push(`refused: ${what}: ${notPlannedNow(change, fresh)}`);
    else if (!sameChange(savedChange(match, plainFields(match)), change)) refused.push(`refused: ${what}: a plan made now would ${describeChange(match)} instead`);
    else changes.add(match);
  }
  if (refused.length > 0) return { changes: null, refused };
  return { changes: fresh.filter((change) => changes.has(change)), refused: [] };
}

/** Changes of one resource share a key: its kind and name (and for agents, the agent). */
function changeKey(change: { resource: string; name: string; id: string | null }): string {
  return JSON.stringify([change.resource, change.name, change.resource === 'agent' ? change.id : null]);
}

function describeChange(change: Change): string {
  const fields = Object.keys(change.fields);
  return `${change.action} it (id ${change.id ?? 'none'}${fields.length > 0 ? `, fields ${fields.join(', ')}` : ''})`;
}

function notPlannedNow(change: SavedChange, fresh: readonly Change[]): string {
  const other = fresh.find((c) => c.resource === change.resource && c.name === change.name);
  if (other !== undefined) return `a plan made now would ${describeChange(other)} instead`;
  return 'a plan made now has no such change (the declared repo, ownership or prune do not call for it)';
}

/** Action, id, fields, what the apply does and the fingerprints; the reason is only prose. */
function sameChange(now: SavedChange, saved: SavedChange): boolean {
  const { reason: _now, ...a } = now;
  const { reason: _saved, ...b } = saved;
  return canonical(a) === canonical(b);
}

/** JSON with object keys sorted, so that a saved plan rewritten with other key orders still compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}

/**
 * Why a saved change was planned against something that is no longer so: its live resource or its declaration, as
 * the pairing of the state now finds them for the change's resource (an agent by its id).
 */
function staleness(change: SavedChange, pairing: Pairing): string | null {
  if (change.resource === 'agent') {
    const agent = pairing.pools.flatMap((pair) => pair.live?.agents ?? []).find((a) => a.id === change.id);
    if (agent === undefined) return 'the agent is gone since the plan was made';
    return same(agentFingerprint(liveAgentRef(agent)), change.live) ? null : 'the agent changed since the plan was made';
  }
  if (change.resource === 'policy') {
    const pair = pairFor(change, pairing.policies);
    return liveProblem(change, pair?.live ?? undefined, (p) => policyFingerprint(livePolicyRef(p), change.declared !== null)) ??
      declaredProblem(change, change.declared === null ? null : pair?.declared, (p) => declaredPolicyFingerprint(policySpec(p)));
  }
  const pair = pairFor(change, pairing.pools);
  return liveProblem(change, pair?.live ?? undefined, (p) => poolFingerprint(livePoolRef(p))) ??
    declaredProblem(change, change.declared === null ? null : pair?.declared, (p) => declaredPoolFingerprint(poolSpec(p)));
}

/** The pair a change is about: the declared resource of its name, or else the undeclared live one. */
function pairFor<D extends { name: string }, L extends { name: string }>(change: SavedChange, pairs: ReadonlyArray<Pair<D, L>>): Pair<D, L> | undefined {
  return pairs.find((pair) => pair.declared?.name === change.name) ?? pairs.find((pair) => pair.declared === null && pair.live?.name === change.name);
}

function liveProblem<T>(change: SavedChange, current: T | undefined, fingerprint: (resource: T) => Fingerprint): string | null {
  if (change.live === null) return current === undefined ? null : `a live ${change.resource} of that name was created since the plan was made`;
  if (current === undefined) return `the live ${change.resource} was deleted since the plan was made`;
  return same(fingerprint(current), change.live) ? null : `the live ${change.resource} changed since the plan was made`;
}

function declaredProblem<T>(change: SavedChange, now: T | null | undefined, fingerprint: (declared: T) => Fingerprint): string | null {
  if (change.declared === null) return null;
  if (now === undefined || now === null) return 'it is no longer declared';
  return same(fingerprint(now), change.declared) ? null : 'its declaration (settings or code) changed since the plan was made';
}

function same(a: Fingerprint, b: Fingerprint | null): boolean {
  return b !== null && JSON.stringify(a) === JSON.stringify(b);
}

/** Reads a saved plan file's text; a problem names the file. Only the shape the apply relies on is checked. */
export function parseSavedPlan(text: string, file: string): SavedPlan {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not a saved plan: ${(error as Error).message}`);
  }
  const plan = document as Partial<SavedPlan> | null;
  if (plan === null || typeof plan !== 'object' || plan.saved_plan_version === undefined) {
    throw new Error(`${file} is not a saved plan (no saved_plan_version); make one with --dry-run --out FILE`);
  }
  if (plan.saved_plan_version !== SAVED_PLAN_VERSION) {
    throw new Error(`${file} has saved_plan_version ${quoted(plan.saved_plan_version)}; this version reads "${SAVED_PLAN_VERSION}"`);
  }
  if (!Array.isArray(plan.sources) || plan.sources.some((s) => typeof s?.name !== 'string' || typeof s.organization !== 'string')) {
    throw new Error(`${file} is not a saved plan: "sources" must list sources with a name and an organization`);
  }
  const seen = new Set<string>();
  for (const source of plan.sources) {
    if (seen.has(source.name)) throw new Error(`${file} lists source "${source.name}" twice; refusing to apply it`);
    seen.add(source.name);
    for (const change of source.changes ?? []) {
      const problem = changeProblem(change);
      if (problem !== null) throw new Error(`${file}: source "${source.name}": ${problem}; refusing to apply it`);
    }
  }
  return plan as SavedPlan;
}

const RESOURCES: readonly string[] = ['policy', 'agent-pool', 'agent'] satisfies ResourceType[];
const ACTIONS: readonly string[] = ['create', 'update', 'replace', 'delete'] satisfies ChangeAction[];

/** What makes a saved change unreadable: a resource or action this version does not know, or a missing name. */
function changeProblem(change: Partial<SavedChange> | null): string | null {
  if (change === null || typeof change !== 'object' || typeof change.name !== 'string') return 'a change has no name';
  const what = `the change of ${quoted(change.resource)} "${change.name}"`;
  if (!RESOURCES.includes(change.resource as string)) return `${what} is of an unknown resource ${quoted(change.resource)}`;
  if (!ACTIONS.includes(change.action as string)) return `${what} has an unknown action ${quoted(change.action)}`;
  return null;
}

/** A value as a message quotes it: a string in quotes, anything else as JSON with its type. */
function quoted(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  const type = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
  return `${JSON.stringify(value) ?? String(value)} (${type})`;
}
