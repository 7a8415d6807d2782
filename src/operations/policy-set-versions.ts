import type { PolicyApi, PolicySet } from '../api/types.js';
import type { LivePolicySet } from '../model.js';
import { markerSet } from '../plan/marker.js';

/**
 * One policy set a source declares, as `/status` and the status page show it: its version, that version's state, and
 * whether it is the one the service enforces. Read from the live state a pass reads anyway; after a pass that wrote to
 * a set, read again (one list request), since its versions changed.
 */
export interface SetVersionStatus {
  name: string;
  /** null: not created yet (the pass could not create it, or has not applied). */
  id: string | null;
  /** Its content comes in versions (a folder uploaded, or VCS); a YAML set has none, and its version fields are null. */
  versioned: boolean;
  /** The newest version's id, or null when it has none. */
  version: string | null;
  /** That version's state: `ready`, `ingressing`, `errored`, `pending`, `canceled`, or what the service sent. */
  state: string | null;
  /** The service's reason when it `errored`. */
  error: string | null;
  /** The version the service enforces (the newest that became ready), or null. */
  currentVersion: string | null;
  /** The version this source made ready, as the set's ownership marker records it; null when it records none. */
  madeReady: string | null;
  /**
   * Whether that version is the one the service enforces, and it is the one this source made ready (when the marker
   * records one): false while a newer version ingresses or has errored, or the enforced one is another's. null for a
   * set without versions, or one not created yet.
   */
  enforced: boolean | null;
}

/** What `setVersionStatus` reads of a live set: the planner's LivePolicySet has it all. */
export type SetVersionSource = Pick<LivePolicySet, 'id' | 'name' | 'versioned' | 'description' | 'currentVersionId' | 'newestVersion'>;

export function setVersionStatus(set: SetVersionSource): SetVersionStatus {
  const newest = set.newestVersion;
  const madeReady = markerSet(set.description).version;
  const enforced = newest !== null && newest.id === set.currentVersionId && (madeReady === null || madeReady === set.currentVersionId);
  return {
    name: set.name,
    id: set.id,
    versioned: set.versioned,
    version: newest?.id ?? null,
    state: newest?.status ?? null,
    error: newest?.errorMessage ?? null,
    currentVersion: set.currentVersionId,
    madeReady,
    enforced: set.versioned ? enforced : null,
  };
}

/**
 * What `/status` shows of a pass's declared sets: as the pass read them, or read again (`read`) when it wrote to one
 * (a new version, a new set); a set not created yet is shown with no id and no version.
 */
export async function passSetVersions(
  sets: ReadonlyArray<{ name: string; live: LivePolicySet | null }>, wrote: boolean, read: (names: string[]) => Promise<SetVersionStatus[]>,
): Promise<SetVersionStatus[]> {
  const names = sets.map((s) => s.name);
  const reread = wrote ? new Map((await read(names)).map((s) => [s.name, s])) : null;
  return sets.map(({ name, live }) => reread?.get(name) ?? (live === null || reread !== null ? notCreated(name) : setVersionStatus(live)));
}

function notCreated(name: string): SetVersionStatus {
  return { name, id: null, versioned: false, version: null, state: null, error: null, currentVersion: null, madeReady: null, enforced: null };
}

/** The named sets read again with their versions (one request per 100 sets), in the order of `names`; a set gone is left out. */
export async function readSetVersions(api: PolicyApi, organization: string, names: readonly string[]): Promise<SetVersionStatus[]> {
  const sets = await api.listPolicySets(organization, { include: ['current_version', 'newest_version'] });
  const byName = new Map(sets.map((set) => [set.name, set]));
  return names.flatMap((name) => {
    const set = byName.get(name);
    return set === undefined ? [] : [setVersionStatus(fromApi(set))];
  });
}

function fromApi(set: PolicySet): SetVersionSource {
  const newest = set.newestVersionId === null ? null
    : { id: set.newestVersionId, status: set.newestVersion?.status ?? 'unknown', errorMessage: set.newestVersion?.errorMessage ?? null };
  return { id: set.id, name: set.name, versioned: set.versioned, description: set.description, currentVersionId: set.currentVersionId, newestVersion: newest };
}
