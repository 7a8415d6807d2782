/**
 * Saved plans (`--dry-run --out FILE`, `--reconcile --plan FILE`): the changes of a plan, each saved as the very
 * change a fresh plan holds (types.ts: plain data with the live resource it was planned against and the declaration it
 * applies), so that applying it later does exactly what was reviewed, or nothing. A saved plan is input, never trusted
 * as written: it is read against schemas/plan.schema.json (cli/saved-plan-file.ts), and applying it plans the same repo against the live
 * state again and refuses the whole plan unless each saved change is still exactly so (its fingerprints hold) and the
 * plan made now holds the identical change (`checkSavedChanges`). Pure: no I/O.
 */
import {
  agentFingerprint, declaredPolicyFingerprint, declaredPoolFingerprint, type Fingerprint, fingerprints, policyFingerprint, poolFingerprint,
} from './fingerprints.js';
import type { NativeKindName, Ownership } from '../model.js';
import type { Pair, Pairing } from './pairs.js';
import { liveAgentRef, livePolicyRef, livePoolRef, policySpec, poolSpec } from './refs.js';
import { plainFields } from './plain-fields.js';
import type { Change } from './types.js';

export const SAVED_PLAN_VERSION = '2';

export interface SavedSource {
  name: string;
  organization: string;
  revision: string | null;
  /** null when no plan could be made; such a saved plan cannot be applied. */
  changes: Change[] | null;
  warnings: string[];
  errors: string[];
}

/** One source as the run that saved the plan had it: a record for the check of the applying run, never read as a setting. */
export interface SavedRunSource {
  name: string;
  organization: string;
  /** Absolute; a description only (checkouts differ between jobs). */
  path: string | null;
  /** Never with credentials. */
  git: { url: string; ref: string; path: string } | null;
  prune: boolean;
  ownership: Ownership;
  max_deletes: number;
  allow_empty: boolean;
  adopt: boolean;
  max_agent_pools: number;
  strict_imports?: boolean;
  /** Absent in plans saved before it was recorded: false. */
  force?: boolean;
}

/** The run that saved the plan: its API and sources (`run`). */
export interface SavedRun {
  api_url: string;
  /** The API's word for the native kind and its enforcement dialect: a description; the applying run uses its own. */
  native_kind?: NativeKindName;
  legacy_enforce?: boolean;
  sources: SavedRunSource[];
}

export interface SavedPlan {
  saved_plan_version: string;
  sources: SavedSource[];
  /** Absent only in a file edited by hand: such a plan is refused. */
  run?: SavedRun;
}

/** A change as a saved plan holds it: the change itself, with its code fields as CodeSummary (never whole texts). */
export function savedChange(change: Change): Change {
  return { ...change, fields: plainFields(change) };
}

export type Resolved = { changes: Change[]; refused: [] } | { changes: null; refused: string[] };

/**
 * The saved changes of one source checked against a plan made now (`fresh`, of the same declared repo against the
 * live state now, with the same options): each must be exactly as it was planned (its live resource and declaration
 * unchanged), and the plan made now must hold the identical change (every field but the prose reason and where the
 * code's bytes are on this machine), which means ownership, prune and the live state (that id has that name) allow it.
 * The changes applied are then those of the fresh plan, so a saved plan and a new one go through one apply. Any
 * difference refuses the whole saved plan.
 */
export function checkSavedChanges(saved: readonly Change[], fresh: readonly Change[], pairing: Pairing): Resolved {
  const refused: string[] = [];
  const changes = new Set<Change>();
  const freshByKey = new Map(fresh.map((change) => [changeKey(change), change]));
  for (const change of saved) {
    const what = `${change.action} ${change.resource} "${change.name}"`;
    const stale = staleness(change, pairing);
    const match = freshByKey.get(changeKey(change));
    const differences = match === undefined ? [] : differingKeys(savedChange(match), change);
    if (stale !== null) refused.push(`stale: ${what}: ${stale}`);
    else if (match === undefined || changes.has(match)) refused.push(`refused: ${what}: ${notPlannedNow(change, fresh)}`);
    else if (differences.length > 0) refused.push(`refused: ${what}: a plan made now would ${describeChange(match)} instead (it differs in ${differences.join(', ')})`);
    else changes.add(match);
  }
  if (refused.length > 0) return { changes: null, refused };
  return { changes: fresh.filter((change) => changes.has(change)), refused: [] };
}

/** Changes of one resource share a key: its kind and name (and for agents, the agent). */
function changeKey(change: Change): string {
  return JSON.stringify([change.resource, change.name, change.resource === 'agent' ? change.id : null]);
}

function describeChange(change: Change): string {
  const fields = Object.keys(change.fields);
  return `${change.action} it (id ${change.id ?? 'none'}${fields.length > 0 ? `, fields ${fields.join(', ')}` : ''})`;
}

function notPlannedNow(change: Change, fresh: readonly Change[]): string {
  const other = fresh.find((c) => c.resource === change.resource && c.name === change.name);
  if (other !== undefined) return `a plan made now would ${describeChange(other)} instead`;
  return 'a plan made now has no such change (the declared repo, ownership or prune do not call for it)';
}

/**
 * The keys in which two changes differ, compared field by field: everything but the reason (only prose) and where
 * the code's bytes are (the source root and the file's path through it differ between machines; the file relative to
 * the root and the digest of its bytes are compared).
 */
function differingKeys(now: Change, saved: Change): string[] {
  const a = comparable(now);
  const b = comparable(saved);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  return keys.filter((key) => canonical(a[key]) !== canonical(b[key]));
}

function comparable(change: Change): Record<string, unknown> {
  const { reason: _reason, ...rest } = change;
  if (rest.resource !== 'policy' || rest.declared === null) return rest;
  const { root: _root, path: _path, ...bytes } = rest.declared.code.source;
  return { ...rest, declared: { ...rest.declared, code: { ...rest.declared.code, source: bytes } } };
}

/** JSON with object keys sorted, so that a saved plan rewritten with other key orders still compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  ) ?? 'undefined';
}

/**
 * Why a saved change was planned against something that is no longer so: the fingerprints of its live resource and
 * its declaration (fingerprints.ts) against those of the pairing of the state now for the change's resource (an
 * agent by its id).
 */
function staleness(change: Change, pairing: Pairing): string | null {
  const saved = fingerprints(change);
  if (change.resource === 'agent') {
    const agent = pairing.pools.flatMap((pair) => pair.live?.agents ?? []).find((a) => a.id === change.id);
    if (agent === undefined) return 'the agent is gone since the plan was made';
    return same(agentFingerprint(liveAgentRef(agent)), saved.live) ? null : 'the agent changed since the plan was made';
  }
  if (change.resource === 'policy') {
    const pair = pairFor(change, pairing.policies);
    return liveProblem(change, saved.live, pair?.live ?? undefined, (p) => policyFingerprint(livePolicyRef(p), change.declared !== null)) ??
      declaredProblem(saved.declared, change.declared === null ? null : pair?.declared, (p) => declaredPolicyFingerprint(policySpec(p)));
  }
  const pair = pairFor(change, pairing.pools);
  return liveProblem(change, saved.live, pair?.live ?? undefined, (p) => poolFingerprint(livePoolRef(p))) ??
    declaredProblem(saved.declared, change.declared === null ? null : pair?.declared, (p) => declaredPoolFingerprint(poolSpec(p)));
}

/** The pair a change is about: the declared resource of its name, or else the undeclared live one. */
function pairFor<D extends { name: string }, L extends { name: string }>(change: Change, pairs: ReadonlyArray<Pair<D, L>>): Pair<D, L> | undefined {
  return pairs.find((pair) => pair.declared?.name === change.name) ?? pairs.find((pair) => pair.declared === null && pair.live?.name === change.name);
}

function liveProblem<T>(change: Change, saved: Fingerprint | null, current: T | undefined, fingerprint: (resource: T) => Fingerprint): string | null {
  if (saved === null) return current === undefined ? null : `a live ${change.resource} of that name was created since the plan was made`;
  if (current === undefined) return `the live ${change.resource} was deleted since the plan was made`;
  return same(fingerprint(current), saved) ? null : `the live ${change.resource} changed since the plan was made`;
}

function declaredProblem<T>(saved: Fingerprint | null, now: T | null | undefined, fingerprint: (declared: T) => Fingerprint): string | null {
  if (saved === null) return null;
  if (now === undefined || now === null) return 'it is no longer declared';
  return same(fingerprint(now), saved) ? null : 'its declaration (settings or code) changed since the plan was made';
}

function same(a: Fingerprint, b: Fingerprint | null): boolean {
  return b !== null && JSON.stringify(a) === JSON.stringify(b);
}
