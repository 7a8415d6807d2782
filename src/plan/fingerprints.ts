/**
 * The fingerprints of a change, computed from its plain data (refs.ts): what of the live resource it was planned
 * against and of the declaration it applies must still hold when a saved plan is applied. The check of a saved plan
 * computes them from the saved change and again from the pairs of the state now, through the same functions, and a
 * difference makes the change stale. Key order is fixed, so equal fingerprints serialise equally. Pure.
 */
import type { LiveAgentRef, LivePolicyRef, LivePoolRef, PolicySpec, PoolSpec } from './refs.js';
import type { Change } from './types.js';

/** The values compared, with a fixed key order. */
export type Fingerprint = Record<string, unknown>;

export interface Fingerprints {
  /** The live resource; null for a creation (nothing of that name existed). */
  live: Fingerprint | null;
  /** The declaration; null for deletions. */
  declared: Fingerprint | null;
}

export function fingerprints(change: Change): Fingerprints {
  if (change.resource === 'policy') {
    return {
      live: change.live === null ? null : policyFingerprint(change.live, change.declared !== null),
      declared: change.declared === null ? null : declaredPolicyFingerprint(change.declared),
    };
  }
  if (change.resource === 'agent-pool') {
    return {
      live: change.live === null ? null : poolFingerprint(change.live),
      declared: change.declared === null ? null : declaredPoolFingerprint(change.declared),
    };
  }
  return { live: agentFingerprint(change.live), declared: null };
}

/** Code is part of a policy's fingerprint only where the plan compared it (the policy is declared). */
export function policyFingerprint(policy: LivePolicyRef, withCode: boolean): Fingerprint {
  return {
    id: policy.id,
    'updated-at': policy.updatedAt,
    name: policy.name,
    kind: policy.kind,
    description: policy.description,
    'enforcement-level': policy.enforcementLevel,
    query: policy.query,
    'policy-sets': [...policy.policySetIds].sort(),
    ...(withCode ? { 'code-digest': policy.codeDigest } : {}),
  };
}

export function poolFingerprint(pool: LivePoolRef): Fingerprint {
  return {
    id: pool.id,
    name: pool.name,
    'organization-scoped': pool.organizationScoped,
    'allowed-workspaces': [...pool.allowedWorkspaceIds].sort(),
    'allowed-projects': [...pool.allowedProjectIds].sort(),
    'excluded-workspaces': [...pool.excludedWorkspaceIds].sort(),
  };
}

export function agentFingerprint(agent: LiveAgentRef): Fingerprint {
  return { id: agent.id, status: agent.status, 'last-ping-at': agent.lastPingAt };
}

/** The exact bytes of the code file, and every setting. */
export function declaredPolicyFingerprint(policy: PolicySpec): Fingerprint {
  return {
    file: policy.code.file,
    kind: policy.kind,
    'file-sha256': policy.code.source.fileSha256,
    description: policy.description,
    'enforcement-level': policy.enforcementLevel,
    query: policy.query,
    'policy-sets': policy.policySets,
  };
}

export function declaredPoolFingerprint(pool: PoolSpec): Fingerprint {
  return {
    file: pool.file,
    'organization-scoped': pool.organizationScoped,
    'allowed-workspaces': pool.allowedWorkspaces,
    'allowed-projects': pool.allowedProjects,
    'excluded-workspaces': pool.excludedWorkspaces,
    'previous-names': pool.previousNames,
    'agent-cleanup': pool.agentCleanup === null ? null : { statuses: pool.agentCleanup.statuses, after: pool.agentCleanup.after },
  };
}
