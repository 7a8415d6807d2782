/**
 * Saved plans (`--dry-run --out FILE`, `--reconcile --plan FILE`): the changes of a plan, each saved as the very
 * change a fresh plan holds (types.ts: plain data with the live resource it was planned against and the declaration it
 * applies), so that applying it later does exactly what was reviewed, or nothing. A saved plan is input, never trusted
 * as written: it is read against schemas/plan.schema.json (cli/saved-plan-file.ts), and applying it plans the same repo against the live
 * state again and refuses the whole plan unless the plan made now holds each saved change identically
 * (`checkSavedChanges`). Pure: no I/O.
 */
import { markerRollout } from './marker.js';
import type { NativeKindName, Ownership } from '../model.js';
import type { Pair, Pairing } from './pairs.js';
import {
  liveAgentRef, livePolicyRef, livePolicySetRef, livePoolRef, policySetSpec, policySpec, poolSpec, type PolicySetSpec, type PolicySpec, type PoolSpec,
} from './refs.js';
import { plainFields } from './plain-fields.js';
import type { Change, PolicySetChange } from './types.js';
import { byCodeUnit } from '../order.js';

export const SAVED_PLAN_VERSION = '2';

export interface SavedSource {
  name: string;
  organization: string;
  revision: string | null;
  /** null when no plan could be made; such a saved plan cannot be applied. */
  changes: Change[] | null;
  warnings: string[];
  errors: string[];
  /** The JSON plan's rollouts: words for a person, never read. */
  rollouts?: unknown[];
  /** The JSON plan's agent tokens: words for a person, never read. */
  tokens?: unknown[];
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

/** Why a saved plan was not applied: it is stale (the state moved), refused (not what a plan made now would do), or held errors. */
export type SavedRefusal = 'stale' | 'refused' | 'unusable';

const REFUSAL_HEADS: Record<SavedRefusal, string> = {
  stale: 'the saved plan is stale',
  refused: 'the saved plan is refused',
  unusable: 'the saved plan of this source has errors or no plan',
};

/** The first error of a saved plan that was not applied: what happened, that nothing was applied, and what to do. */
export function savedRefusalHead(refusal: SavedRefusal, why: string): string {
  return `${REFUSAL_HEADS[refusal]}: ${why}`;
}

/** Whether a plan's errors say that its saved plan was not applied, and why; null for any other errors. */
export function savedRefusal(errors: readonly string[]): SavedRefusal | null {
  const first = errors[0] ?? '';
  for (const [refusal, head] of Object.entries(REFUSAL_HEADS) as Array<[SavedRefusal, string]>) {
    if (first.startsWith(`${head}: `)) return refusal;
  }
  return null;
}

/**
 * The saved changes of one source checked against a plan made now (`fresh`, of the same declared repo against the
 * live state now, with the same options). One decision: a saved change is applied only when the plan made now holds
 * the identical change (every key but the prose reason and where the code's bytes are on this machine), which means
 * its live resource and declaration are as they were, and ownership, prune and the live state (that id has that name)
 * allow it. The changes applied are then those of the fresh plan, so a saved plan and a new one go through one apply.
 * Any difference refuses the whole saved plan; the message says `stale` when what differs is the live resource or
 * the declaration (compared with the pairs of the state now, in the same way), else `refused`.
 */
export function checkSavedChanges(saved: readonly Change[], fresh: readonly Change[], pairing: Pairing): Resolved {
  const refused: string[] = [];
  const changes = new Set<Change>();
  const freshByKey = new Map(fresh.map((change) => [changeKey(change), change]));
  for (const change of saved) {
    const match = freshByKey.get(changeKey(change));
    const differences = match === undefined ? null : differingKeys(savedChange(match), change);
    if (match !== undefined && differences?.length === 0 && !changes.has(match)) {
      changes.add(match);
      continue;
    }
    const what = `${change.action} ${change.resource} "${change.name}"`;
    const stale = staleness(change, pairing);
    if (stale !== null) refused.push(`stale: ${what}: ${stale}`);
    else if (match === undefined || changes.has(match)) refused.push(`refused: ${what}: ${notPlannedNow(change, fresh)}`);
    else refused.push(`refused: ${what}: a plan made now would ${describeChange(match)} instead (it differs in ${(differences ?? []).join(', ')})`);
  }
  if (refused.length > 0) return { changes: null, refused };
  return { changes: fresh.filter((change) => changes.has(change)), refused: [] };
}

/** Changes of one resource share a key: its kind and name (and for agents and tokens, the agent or token). */
function changeKey(change: Change): string {
  return JSON.stringify([change.resource, change.name, change.resource === 'agent' || change.resource === 'agent-token' ? change.id : null]);
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
  // Words for a person are not compared: the reason, and the files a content changed (known only where the state dir
  // holds the content before, which the run that applies may not).
  const { reason: _reason, evidence: _evidence, ...rest } = withoutScopeNames(change.resource === 'policy-set' ? withoutContentFiles(change) : change);
  return rest.resource === 'agent' || rest.resource === 'agent-token' ? rest : withoutStartTime({ ...rest, declared: comparableSpec(rest.declared) });
}

/**
 * A rollout that begins with the plan records the time the plan was made; the plan that applies it begins it at its
 * own time. Its start time (in the spec's record and in the `rollout` field's words) is not compared; every other part
 * of the record is, and a rollout under way (its marker records it) is compared whole.
 */
function withoutStartTime(change: Record<string, unknown>): Record<string, unknown> {
  const declared = change['declared'] as { rollout?: { digest: string; startedAt: number } } | null;
  const live = change['live'] as { description?: string | null } | null;
  if (declared?.rollout === undefined || markerRollout(live?.description ?? null)?.digest === declared.rollout.digest) return change;
  const fields = { ...(change['fields'] as Record<string, unknown>) };
  if (fields['rollout'] !== undefined) fields['rollout'] = 'begins with the plan';
  return { ...change, fields, declared: { ...declared, rollout: { ...declared.rollout, startedAt: null } } };
}

function withoutContentFiles(change: PolicySetChange): PolicySetChange {
  const { contentFiles: _files, ...rest } = change;
  return rest;
}

/** The names of a scope's ids and what its wildcards matched are words for a person too: the lists read may differ later. */
function withoutScopeNames(change: Change): Change {
  if (change.resource !== 'policy-set' && change.resource !== 'agent-pool') return change;
  const { scope: _scope, ...rest } = change;
  return rest;
}

type Spec = PolicySpec | PolicySetSpec | PoolSpec | null;

/** A declaration as compared: a policy's code, a set's content, without where its bytes were on the machine that read them. */
function comparableSpec(spec: Spec | undefined): unknown {
  if (spec !== undefined && spec !== null && 'content' in spec) {
    return spec.content === null ? spec : { ...spec, content: { ...spec.content, root: null } };
  }
  if (spec === undefined || spec === null || !('code' in spec)) return spec ?? null;
  const { root: _root, path: _path, ...bytes } = spec.code.source;
  return { ...spec, code: { ...spec.code, source: bytes } };
}

/** JSON with object keys sorted, so that a saved plan rewritten with other key orders still compares equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => byCodeUnit(x, y)))
      : v,
  ) ?? 'undefined';
}

/**
 * Why a refused change was planned against something that is no longer so, for its message: its live resource and
 * declaration against those of the pairs of the state now for its resource (an agent by its id), made into refs by
 * the functions the planner uses (refs.ts) and compared as the identity check compares them. null: they are as saved.
 */
function staleness(change: Change, pairing: Pairing): string | null {
  if (change.resource === 'agent') {
    const agent = pairing.pools.flatMap((pair) => pair.live?.agents ?? []).find((a) => a.id === change.id);
    if (agent === undefined) return 'the agent is gone since the plan was made';
    return same(liveAgentRef(agent), change.live) ? null : 'the agent changed since the plan was made';
  }
  if (change.resource === 'agent-token') {
    const pair = pairing.pools.find((p) => p.declared?.name === change.poolName);
    const description = change.declared?.description ?? change.live.token?.description;
    const ids = (pair?.live?.tokens ?? []).filter((t) => t.description === description).map((t) => t.id);
    const same = pair?.live?.id === (change.live.poolId ?? undefined) && ids.length === change.live.tokenIds.length && ids.every((id) => change.live.tokenIds.includes(id));
    return same ? null : 'the pool\'s tokens of that description changed since the plan was made';
  }
  if (change.resource === 'policy') {
    const pair = pairFor(change, pairing.policies);
    return liveProblem(change, pair?.live ?? undefined, livePolicyRef) ?? declaredProblem(change.declared, change.declared === null ? null : pair?.declared, policySpec);
  }
  if (change.resource === 'policy-set') {
    const pair = pairFor(change, pairing.sets);
    return liveProblem(change, pair?.live ?? undefined, livePolicySetRef) ?? declaredProblem(change.declared, change.declared === null ? null : pair?.declared, policySetSpec);
  }
  const pair = pairFor(change, pairing.pools);
  return liveProblem(change, pair?.live ?? undefined, livePoolRef) ?? declaredProblem(change.declared, change.declared === null ? null : pair?.declared, poolSpec);
}

/** The pair a change is about: the declared resource of its name, or else the undeclared live one. */
function pairFor<D extends { name: string }, L extends { name: string }>(change: Change, pairs: ReadonlyArray<Pair<D, L>>): Pair<D, L> | undefined {
  return pairs.find((pair) => pair.declared?.name === change.name) ?? pairs.find((pair) => pair.declared === null && pair.live?.name === change.name);
}

function liveProblem<T>(change: Change, current: T | undefined, ref: (resource: T) => unknown): string | null {
  if (change.live === null) return current === undefined ? null : `a live ${change.resource} of that name was created since the plan was made`;
  if (current === undefined) return `the live ${change.resource} was deleted since the plan was made`;
  return same(ref(current), change.live) ? null : `the live ${change.resource} changed since the plan was made`;
}

function declaredProblem<T>(saved: Spec, now: T | null | undefined, spec: (declared: T) => Spec): string | null {
  if (saved === null) return null;
  if (now === undefined || now === null) return 'it is no longer declared';
  return same(comparableSpec(spec(now)), comparableSpec(saved)) ? null : 'its declaration (settings or code) changed since the plan was made';
}

function same(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}
