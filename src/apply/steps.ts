import { hasIdShape } from '../api/ids.js';
import type { CreatePolicyInput, Policy, UpdateAgentPoolInput, UpdatePolicyInput } from '../api/types.js';
import { codeBody } from '../declared/index.js';
import { ApiError, errorMessage } from '../errors.js';
import { withMarker } from '../plan/marker.js';
import { ownsMet, refuseMet } from '../plan/pairs.js';
import type { CodeRef, PolicySpec } from '../plan/refs.js';
import type { AgentChange, PolicyChange, PoolChange } from '../plan/types.js';
import type { ApplyOptions } from './options.js';
import { withKnownSets } from './replace-sets.js';

/** What a step resolves with when it did not apply its change and that is no failure: the reason. */
export interface Skipped {
  skipped: string;
}

/**
 * A create (or a replace: delete, then create) and its upload, as one step. A create refused because the name
 * is taken meets a policy another run made at the same time: it is looked up and used when it is this source's.
 */
export async function createPolicyWithCode(planned: PolicyChange, options: ApplyOptions): Promise<void> {
  const change = await withKnownSets(planned, options.api);
  const declared = change.declared!;
  if (change.action === 'replace' && change.live !== null) await options.api.deletePolicy(change.live.id);
  let made: Made;
  try {
    made = await createOrFind(change, options);
  } catch (error) {
    throw new Error(`${errorMessage(error)}${change.action === 'replace' ? lostOnReplace(change) : ''}`, { cause: error });
  }
  if (!made.upload) return;
  try {
    await upload(made.id, declared.code, options);
  } catch (error) {
    // A replacement keeps its policy sets: it stays, without code, and the next pass uploads it.
    if (change.action === 'replace' || made.found) throw new Error(`${errorMessage(error)}; the policy is left without its code until the next pass uploads it`, { cause: error });
    await deleteQuietly(made.id, options);
    throw error;
  }
}

interface Made {
  id: string;
  /** Whether the policy was made by someone else (another run at the same time) and found by name. */
  found: boolean;
  /** Whether its code must be uploaded. */
  upload: boolean;
}

async function createOrFind(change: PolicyChange, options: ApplyOptions): Promise<Made> {
  const declared = change.declared!;
  // A create whose answer was lost finds the policy it made by name, and takes it only as one met here would be.
  const owns = (met: Policy) => refuseMet(met, declared.kind, options) === null;
  try {
    const policy = await options.api.createPolicy(options.organization, await createInput(change, options), owns);
    return { id: policy.id, found: false, upload: true };
  } catch (error) {
    if (!nameTaken(error)) throw error;
    const existing = (await options.api.listPolicies(options.organization, { search: change.name })).find((p) => p.name === change.name);
    if (existing === undefined) throw error;
    const refused = refuseMet(existing, declared.kind, options);
    if (refused !== null) throw new Error(`${refused} (${errorMessage(error)})`, { cause: error });
    const code = await options.api.downloadPolicyDigest(existing, 0);
    options.logger.warn({ resourceName: change.name, policyId: existing.id }, 'policy created by another run at the same time; using it');
    return { id: existing.id, found: true, upload: code === null || code.digest !== declared.code.sha256 };
  }
}

/** A 422 "has already been taken" on a create: another run created the same name since the plan was made. */
export function nameTaken(error: unknown): boolean {
  return error instanceof ApiError && error.status === 422 && /already been taken/i.test(error.message);
}

/** What a replace that deleted the live policy but could not create the new one has lost. */
function lostOnReplace(change: PolicyChange): string {
  const lost = change.live?.policySetIds ?? [];
  if (lost.length === 0) return '; the live policy was deleted, and the next pass creates it again';
  return `; the live policy was deleted, and its policy sets could not be restored: ${lost.join(', ')}. ` +
    'The next pass creates it again; add it to those sets again by hand';
}

async function upload(id: string, code: CodeRef, options: ApplyOptions): Promise<void> {
  const uploaded: Policy | null = await options.api.uploadPolicy(id, codeBody(code));
  // The answer's `updated-at` is that of the bytes just sent: the next pass need not download them.
  if (uploaded !== null && uploaded.updatedAt !== null) options.onUploaded?.(id, uploaded.updatedAt, code.sha256);
}

/**
 * The ids of a policy's sets: a name the plan could not turn into an id names a set the create-sets wave made in this
 * run; it is looked up by name once per run.
 */
const setIdsByRun = new WeakMap<ApplyOptions, Map<string, Promise<string>>>();

export async function setIds(entries: readonly string[], options: ApplyOptions): Promise<string[]> {
  let known = setIdsByRun.get(options);
  if (known === undefined) setIdsByRun.set(options, (known = new Map()));
  return Promise.all(entries.map((entry) => {
    if (hasIdShape('policy-set', entry)) return entry;
    let id = known.get(entry);
    if (id === undefined) {
      id = options.api.listPolicySets(options.organization, { search: entry }).then((sets) => {
        const found = sets.find((set) => set.name === entry);
        if (found === undefined) throw new Error(`policy set "${entry}" was not found; the create of the set did not succeed`);
        return found.id;
      });
      known.set(entry, id);
    }
    return id;
  }));
}

async function createInput(change: PolicyChange, options: ApplyOptions): Promise<CreatePolicyInput> {
  const declared = change.declared!;
  return {
    name: change.name,
    kind: declared.kind,
    description: describe(declared, options),
    enforcementLevel: declared.enforcementLevel,
    query: declared.kind === 'opa' ? declared.query : null,
    // A replacement keeps the policy sets of the policy it replaces unless the repo names them.
    policySetIds: declared.policySets === null ? change.live?.policySetIds ?? [] : await setIds(declared.policySets, options),
  };
}

export async function updatePolicy(change: PolicyChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  const input: UpdatePolicyInput = {};
  if (change.fields['description'] !== undefined || change.fields['rollout'] !== undefined || change.adoptMarker) input.description = describe(declared, options);
  if (change.fields['enforcement-level'] !== undefined) input.enforcementLevel = declared.enforcementLevel;
  if (change.fields['query'] !== undefined && declared.query !== null) input.query = declared.query;
  if (change.uploadCode) await upload(change.id!, declared.code, options);
  if (Object.keys(input).length > 0) await options.api.updatePolicy(change.live!, input);
  if (change.fields['policy-sets'] !== undefined && declared.policySets !== null) {
    await movePolicy(change.id!, change.live!.policySetIds, await setIds(declared.policySets, options), options);
  }
}

/** Into the declared sets it is not in, then out of the live sets not declared: a policy is never briefly in no set. */
async function movePolicy(id: string, live: readonly string[], declared: readonly string[], options: ApplyOptions): Promise<void> {
  for (const set of declared.filter((s) => !live.includes(s))) await options.api.addToPolicySet(set, 'policies', [id]);
  for (const set of live.filter((s) => !declared.includes(s))) await options.api.removeFromPolicySet(set, 'policies', [id]);
}

/** The description written: with this source's marker, which also records a rollout (under any ownership: it is where the rollout's state lives). */
function describe(declared: Pick<PolicySpec, 'description' | 'rollout'>, options: ApplyOptions): string | null {
  const rollout = declared.rollout ?? null;
  return options.ownership === 'marker' || rollout !== null ? withMarker(declared.description, options.source, { rollout }) : declared.description;
}

export async function createPool(change: PoolChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  await options.api.createAgentPool(options.organization, {
    name: change.name,
    organizationScoped: declared.organizationScoped,
    allowedWorkspaceIds: declared.allowedWorkspaces,
    allowedProjectIds: declared.allowedProjects,
    excludedWorkspaceIds: declared.excludedWorkspaces,
  // Pools carry no marker: one found after a lost answer is this source's as an undeclared one would be.
  }, () => ownsMet(null, options));
}

/** Name and scope always (see UpdateAgentPoolInput); the allowed workspaces only when they drifted. */
export function poolUpdate(change: PoolChange): UpdateAgentPoolInput {
  const declared = change.declared!;
  const input: UpdateAgentPoolInput = { name: change.name, organizationScoped: declared.organizationScoped };
  if (change.fields['allowed-workspaces'] !== undefined && declared.allowedWorkspaces !== null) {
    input.allowedWorkspaceIds = declared.allowedWorkspaces;
  }
  if (change.fields['allowed-projects'] !== undefined && declared.allowedProjects) input.allowedProjectIds = declared.allowedProjects;
  if (change.fields['excluded-workspaces'] !== undefined && declared.excludedWorkspaces) input.excludedWorkspaceIds = declared.excludedWorkspaces;
  return input;
}

/** An agent's clean-up; skipped when the agent came back since the plan was made. */
export async function deleteAgent(change: AgentChange, options: ApplyOptions): Promise<Skipped | undefined> {
  try {
    await options.api.deleteAgent(change.live.id);
    return undefined;
  } catch (error) {
    // 412: the agent came back (idle or busy) since the plan was made; it is no longer ours to clean up.
    if (error instanceof ApiError && error.status === 412) return { skipped: 'agent is active again' };
    throw error;
  }
}

async function deleteQuietly(id: string, options: ApplyOptions): Promise<void> {
  try {
    await options.api.deletePolicy(id);
  } catch (error) {
    options.logger.error({ policyId: id, error: errorMessage(error) }, 'could not delete a policy created without its code');
  }
}
