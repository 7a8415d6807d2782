/**
 * Saved plans (`--dry-run --out FILE`, `--reconcile --plan FILE`): what a plan must record so that applying it later
 * does exactly what was reviewed, or nothing. Each change records a fingerprint of the live resource it was planned
 * against and of the declaration it applies; applying re-reads both and refuses the whole plan if any differs.
 * Pure: no I/O.
 */
import type { DeclaredPolicy, DeclaredPool, DeclaredState } from '../declared/types.js';
import type { LiveAgent, LivePolicy, LivePool, LiveState } from '../model.js';
import type { Change, ChangeAction, FieldChange, ResourceType } from './types.js';

export const SAVED_PLAN_VERSION = '1';

/** A fingerprint: the values compared, with a fixed key order so that equal fingerprints serialise equally. */
export type Fingerprint = Record<string, unknown>;

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
  if (change.resource === 'policy') {
    return {
      ...base,
      upload_code: change.uploadCode,
      adopt_marker: change.adoptMarker,
      live: change.live === null ? null : policyFingerprint(change.live, change.declared !== null),
      declared: change.declared === null ? null : declaredPolicyFingerprint(change.declared),
    };
  }
  if (change.resource === 'agent-pool') {
    return {
      ...base,
      live: change.live === null ? null : poolFingerprint(change.live),
      declared: change.declared === null ? null : declaredPoolFingerprint(change.declared),
    };
  }
  return { ...base, pool: change.poolName, live: agentFingerprint(change.live), declared: null };
}

/** Code is part of a policy's fingerprint only where the plan compared it (the policy is declared). */
function policyFingerprint(policy: LivePolicy, withCode: boolean): Fingerprint {
  return {
    id: policy.id,
    'updated-at': policy.updatedAt,
    name: policy.name,
    kind: policy.kind,
    description: policy.description,
    'enforcement-level': policy.enforcementLevel,
    query: policy.query,
    'policy-sets': [...policy.policySetIds].sort(),
    ...(withCode ? { 'code-sha256': policy.codeDigest } : {}),
  };
}

function poolFingerprint(pool: LivePool): Fingerprint {
  return {
    id: pool.id,
    name: pool.name,
    'organization-scoped': pool.organizationScoped,
    'allowed-workspaces': [...pool.allowedWorkspaceIds].sort(),
    'allowed-projects': [...pool.allowedProjectIds].sort(),
    'excluded-workspaces': [...pool.excludedWorkspaceIds].sort(),
  };
}

function agentFingerprint(agent: LiveAgent): Fingerprint {
  return { id: agent.id, status: agent.status, 'last-ping-at': agent.lastPingAt };
}

/** The exact bytes of the code file, and every setting. */
function declaredPolicyFingerprint(policy: DeclaredPolicy): Fingerprint {
  return {
    file: policy.file,
    kind: policy.kind,
    'code-sha256': policy.codeSource.sha256,
    description: policy.description,
    'enforcement-level': policy.enforcementLevel,
    query: policy.query,
    'policy-sets': policy.policySets,
  };
}

function declaredPoolFingerprint(pool: DeclaredPool): Fingerprint {
  return {
    file: pool.file,
    'organization-scoped': pool.organizationScoped,
    'allowed-workspaces': pool.allowedWorkspaces,
    'allowed-projects': pool.allowedProjects ?? null,
    'excluded-workspaces': pool.excludedWorkspaces ?? null,
    'previous-names': pool.previousNames,
    'agent-cleanup': pool.agentCleanup === null ? null : { statuses: pool.agentCleanup.statuses, after: pool.agentCleanup.after },
  };
}

export type Resolved = { changes: Change[]; stale: [] } | { changes: null; stale: string[] };

/**
 * The saved changes of one source against the state now: each live resource and declaration they were planned
 * against must be exactly as it was. Any difference makes the change stale, and then nothing is applied.
 */
export function resolveSavedChanges(saved: readonly SavedChange[], declared: DeclaredState, live: LiveState): Resolved {
  const stale: string[] = [];
  const changes: Change[] = [];
  const policiesByName = new Map(declared.policies.map((p) => [p.name, p]));
  const poolsByName = new Map(declared.pools.map((p) => [p.name, p]));
  const agents = new Map(live.pools.flatMap((pool) => pool.agents.map((agent) => [agent.id, agent] as const)));
  for (const change of saved) {
    const what = `${change.action} ${change.resource} "${change.name}"`;
    const problem = (text: string) => void stale.push(`${what}: ${text}`);
    if (change.resource === 'agent') {
      const agent = change.id === null ? undefined : agents.get(change.id);
      if (agent === undefined) problem('the agent is gone since the plan was made');
      else if (!same(agentFingerprint(agent), change.live)) problem('the agent changed since the plan was made');
      else changes.push({ ...base(change), resource: 'agent', action: 'delete', poolName: change.pool ?? '', live: agent });
      continue;
    }
    if (change.resource === 'policy') {
      const current = findLive(change, live.policies, (p) => p.name === change.name);
      const now = change.declared === null ? null : policiesByName.get(change.name);
      const reason = liveProblem(change, current, (p) => policyFingerprint(p, change.declared !== null)) ?? declaredProblem(change, now, declaredPolicyFingerprint);
      if (reason !== null) problem(reason);
      else changes.push({ ...base(change), resource: 'policy', declared: now ?? null, live: current ?? null, uploadCode: change.upload_code === true, adoptMarker: change.adopt_marker === true });
      continue;
    }
    const names = new Set([change.name, ...(poolsByName.get(change.name)?.previousNames ?? [])]);
    const current = findLive(change, live.pools, (p) => names.has(p.name));
    const now = change.declared === null ? null : poolsByName.get(change.name);
    const reason = liveProblem(change, current, poolFingerprint) ?? declaredProblem(change, now, declaredPoolFingerprint);
    if (reason !== null) problem(reason);
    else changes.push({ ...base(change), resource: 'agent-pool', declared: now ?? null, live: current ?? null });
  }
  return stale.length > 0 ? { changes: null, stale } : { changes, stale: [] };
}

function base(change: SavedChange) {
  return { name: change.name, id: change.id, action: change.action, reason: change.reason, fields: change.fields };
}

/** The live resource a change was planned against (by id), or for a creation whatever now has its name. */
function findLive<T extends { id: string }>(change: SavedChange, live: readonly T[], sameName: (resource: T) => boolean): T | undefined {
  return change.live === null ? live.find(sameName) : live.find((resource) => resource.id === change.id);
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
    throw new Error(`${file} has saved_plan_version "${String(plan.saved_plan_version)}"; this version reads "${SAVED_PLAN_VERSION}"`);
  }
  if (!Array.isArray(plan.sources) || plan.sources.some((s) => typeof s?.name !== 'string' || typeof s.organization !== 'string')) {
    throw new Error(`${file} is not a saved plan: "sources" must list sources with a name and an organization`);
  }
  return plan as SavedPlan;
}
