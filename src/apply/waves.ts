import type { Change, ChangeResult } from '../plan/types.js';
import { blockedDelete } from './dependent-deletes.js';
import type { ApplyOptions } from './options.js';
import { createPolicySet, updatePolicySet } from './policy-set-steps.js';
import { createPolicyWithCode, createPool, deleteAgent, poolUpdate, updatePolicy, type Skipped } from './steps.js';
import { createToken, deleteToken } from './token-steps.js';

/**
 * One step of the apply order: the changes it takes, how each is carried out, and when one must be skipped because
 * of how the waves before it went. The waves run one after the other; the changes of a wave run side by side.
 */
export interface Wave {
  /** Named in logs and progress. */
  name: string;
  /** Which changes it runs. A change runs in the first wave of the table that takes it, and only there. */
  takes: (change: Change) => boolean;
  /** Carries out one change; resolves with a reason when it skipped it (no failure), throws when it failed. */
  run: (change: Change, options: ApplyOptions) => Promise<Skipped | undefined>;
  /** Why a change must not run after the waves before went as they did (their `results`), or null to run it. */
  skip?: (change: Change, results: ReadonlyMap<Change, ChangeResult>) => string | null;
}

/** Policies an interrupted run created without code: they get it first, so interruptions in a row do not pile them up. */
function halfMade(change: Change): boolean {
  return change.resource === 'policy' && change.action === 'update' && change.uploadCode && change.live !== null && change.live.updatedAt === null;
}

async function update(change: Change, options: ApplyOptions): Promise<undefined> {
  if (change.resource === 'policy') await updatePolicy(change, options);
  else if (change.resource === 'policy-set') await updatePolicySet(change, options);
  else if (change.resource === 'agent-pool') await options.api.updateAgentPool(change.id!, poolUpdate(change));
  return undefined;
}

/**
 * The apply order. Policy sets are created (a versioned one with its content, until ready) before the policies that
 * join them; creates and replaces come before updates, each policy's upload right after its create, so an
 * interruption leaves at most `concurrency` policies without code; deletes come last, and a pool's delete waits for
 * the pools planned in its place (dependent-deletes.ts); a set is deleted after the updates that take policies out of
 * it. A set's kind change is a replace (delete, then create) in the set wave.
 */
export const WAVES: readonly Wave[] = [
  { name: 'finish-uploads', takes: halfMade, run: update },
  {
    name: 'create-sets',
    takes: (c) => c.resource === 'policy-set' && (c.action === 'create' || c.action === 'replace'),
    run: async (change, options) => {
      if (change.resource === 'policy-set') await createPolicySet(change, options);
      return undefined;
    },
  },
  {
    name: 'create',
    takes: (c) => c.resource !== 'agent-token' && (c.action === 'create' || c.action === 'replace'),
    run: async (change, options) => {
      if (change.resource === 'agent-pool') await createPool(change, options);
      else if (change.resource === 'policy') await createPolicyWithCode(change, options);
      return undefined;
    },
  },
  {
    name: 'tokens',
    takes: (c) => c.resource === 'agent-token',
    skip: tokenPoolFailed,
    run: (change, options) => (change.resource !== 'agent-token' ? Promise.resolve(undefined) : change.action === 'create' ? createToken(change, options) : deleteToken(change, options)),
  },
  { name: 'update', takes: (c) => c.action === 'update', run: update },
  {
    name: 'delete',
    takes: (c) => c.action === 'delete' && c.resource !== 'policy-set',
    skip: blockedDelete,
    run: async (change, options) => {
      if (change.resource === 'agent') return deleteAgent(change, options);
      if (change.resource === 'policy') await options.api.deletePolicy(change.id!);
      else await options.api.deleteAgentPool(change.id!);
      return undefined;
    },
  },
  {
    name: 'delete-sets',
    takes: (c) => c.resource === 'policy-set' && c.action === 'delete',
    run: async (change, options) => {
      await options.api.deletePolicySet(change.id!);
      return undefined;
    },
  },
];

/** A token of a pool whose create failed or was skipped has no pool to be made in. */
function tokenPoolFailed(change: Change, results: ReadonlyMap<Change, ChangeResult>): string | null {
  if (change.resource !== 'agent-token') return null;
  for (const [other, result] of results) {
    if (other.resource === 'agent-pool' && other.action === 'create' && other.name === change.poolName && result.outcome !== 'applied') return `its agent pool "${change.poolName}" was not created`;
  }
  return null;
}

/** The changes of each wave, in plan order; a change no wave takes is in none. */
export function sortIntoWaves(changes: readonly Change[], waves: readonly Wave[] = WAVES): Change[][] {
  const sorted = waves.map((): Change[] => []);
  for (const change of changes) {
    const index = waves.findIndex((wave) => wave.takes(change));
    if (index >= 0) sorted[index]!.push(change);
  }
  return sorted;
}
