import type { Logger } from '../logger.js';
import type { CreatePolicyInput, Policy, PolicyApi, UpdateAgentPoolInput, UpdatePolicyInput } from '../api/types.js';
import { ApiError, errorMessage } from '../errors.js';
import type { DeclaredPolicy } from '../declared/types.js';
import { withMarker } from '../plan/marker.js';
import type { Ownership } from '../model.js';
import type { AgentChange, Change, Plan, PolicyChange, PoolChange } from '../plan/types.js';

/** What became of one planned change. */
export interface ActionResult {
  change: Change;
  outcome: 'applied' | 'failed' | 'skipped';
  /** Why it failed or was skipped. */
  message: string | null;
}

export interface ApplyOptions {
  api: PolicyApi;
  organization: string;
  source: string;
  ownership: Ownership;
  logger: Logger;
  /** Told of each upload whose answer carries the policy's new `updated-at` (the code cache learns it). */
  onUploaded?: (policyId: string, updatedAt: string, declared: DeclaredPolicy) => void;
}

/**
 * Executes exactly the planned changes: creates (and replaces), then uploads, then updates, deletes last.
 * One failed action does not stop the others; a policy created in this pass whose upload fails is deleted again.
 * Resolves with one result per planned change, in plan order.
 */
export async function applyPlan(plan: Plan, options: ApplyOptions): Promise<ActionResult[]> {
  const results = new Map<Change, ActionResult>();
  const record = (change: Change, outcome: ActionResult['outcome'], message: string | null = null) => {
    results.set(change, { change, outcome, message });
    const meta = { resource: change.resource, resourceName: change.name, action: change.action, outcome };
    if (outcome === 'failed') options.logger.error({ ...meta, error: message }, 'change failed');
    else options.logger.info(meta, 'change applied');
  };
  const run = <T extends Change>(changes: T[], step: (change: T) => Promise<void>) =>
    Promise.all(changes.map(async (change) => {
      if (results.get(change)?.outcome === 'failed') return;
      try {
        await step(change);
      } catch (error) {
        record(change, 'failed', errorMessage(error));
      }
    }));

  const byAction = (action: Change['action']) => plan.changes.filter((c) => c.action === action);
  const created = new Map<PolicyChange, string>();

  await run([...byAction('create'), ...byAction('replace')], async (change) => {
    if (change.resource === 'agent') return;
    if (change.resource === 'agent-pool') {
      await createPool(change, options);
      record(change, 'applied');
      return;
    }
    if (change.action === 'replace' && change.live !== null) await options.api.deletePolicy(change.live.id);
    const policy = await options.api.createPolicy(options.organization, createInput(change, options));
    created.set(change, policy.id);
    if (!change.uploadCode) record(change, 'applied');
  });

  const uploads = plan.changes.filter((c): c is PolicyChange => c.resource === 'policy' && c.uploadCode);
  await run(uploads, async (change) => {
    const id = created.get(change) ?? change.id;
    if (id === null || change.declared === null) return;
    let uploaded: Policy | null;
    try {
      uploaded = await options.api.uploadPolicy(id, change.declared.absolutePath);
    } catch (error) {
      if (created.has(change)) await deleteQuietly(id, options);
      throw error;
    }
    // The answer's `updated-at` is that of the bytes just sent: the next pass need not download them.
    if (uploaded !== null && uploaded.updatedAt !== null) options.onUploaded?.(id, uploaded.updatedAt, change.declared);
    if (change.action !== 'update') record(change, 'applied');
  });

  await run(byAction('update'), async (change) => {
    if (change.resource === 'policy') await updatePolicy(change, options);
    else if (change.resource === 'agent-pool') await options.api.updateAgentPool(change.id!, poolUpdate(change));
    record(change, 'applied');
  });

  await run(byAction('delete'), async (change) => {
    if (change.resource === 'agent') return deleteAgent(change, options, record);
    if (change.resource === 'policy') await options.api.deletePolicy(change.id!);
    else await options.api.deleteAgentPool(change.id!);
    record(change, 'applied');
  });

  return plan.changes.map((c) => results.get(c) ?? { change: c, outcome: 'skipped' as const, message: null });
}

function createInput(change: PolicyChange, options: ApplyOptions): CreatePolicyInput {
  const declared = change.declared!;
  return {
    name: declared.name,
    kind: declared.kind,
    description: describe(declared.description, options),
    enforcementLevel: declared.enforcementLevel,
    query: declared.kind === 'opa' ? declared.query : null,
    // A replacement keeps the policy sets of the policy it replaces unless the repo names them.
    policySetIds: declared.policySets ?? change.live?.policySetIds ?? [],
  };
}

async function updatePolicy(change: PolicyChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  const input: UpdatePolicyInput = {};
  if (change.fields['description'] !== undefined || change.adoptMarker) input.description = describe(declared.description, options);
  if (change.fields['enforcement-level'] !== undefined) input.enforcementLevel = declared.enforcementLevel;
  if (change.fields['query'] !== undefined && declared.query !== null) input.query = declared.query;
  if (Object.keys(input).length > 0) await options.api.updatePolicy(change.live!, input);
}

function describe(description: string | null, options: ApplyOptions): string | null {
  return options.ownership === 'marker' ? withMarker(description, options.source) : description;
}

async function createPool(change: PoolChange, options: ApplyOptions): Promise<void> {
  const declared = change.declared!;
  await options.api.createAgentPool(options.organization, {
    name: declared.name,
    organizationScoped: declared.organizationScoped,
    allowedWorkspaceIds: declared.allowedWorkspaces,
  });
}

/** Name and scope always (see UpdateAgentPoolInput); the allowed workspaces only when they drifted. */
function poolUpdate(change: PoolChange): UpdateAgentPoolInput {
  const declared = change.declared!;
  const input: UpdateAgentPoolInput = { name: declared.name, organizationScoped: declared.organizationScoped };
  if (change.fields['allowed-workspaces'] !== undefined && declared.allowedWorkspaces !== null) {
    input.allowedWorkspaceIds = declared.allowedWorkspaces;
  }
  return input;
}

async function deleteAgent(
  change: AgentChange,
  options: ApplyOptions,
  record: (change: Change, outcome: ActionResult['outcome'], message?: string | null) => void,
): Promise<void> {
  try {
    await options.api.deleteAgent(change.live.id);
    record(change, 'applied');
  } catch (error) {
    // 412: the agent came back (idle or busy) since the plan was made; it is no longer ours to clean up.
    if (error instanceof ApiError && error.status === 412) record(change, 'skipped', 'agent is active again');
    else throw error;
  }
}

async function deleteQuietly(id: string, options: ApplyOptions): Promise<void> {
  try {
    await options.api.deletePolicy(id);
  } catch (error) {
    options.logger.error({ policyId: id, error: errorMessage(error) }, 'could not delete a policy created without its code');
  }
}
