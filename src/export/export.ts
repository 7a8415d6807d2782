/**
 * `--export DIR`: a declared repo written from the live organization, so that teams arriving with policies and pools
 * made by hand, by the Terraform provider or by VCS policy sets start from what they have: policies, agent pools and
 * policy sets (sets.ts). Reads only: no write to the API. What it writes is a repo the tool's own `--validate` accepts: what could not be written so is listed instead.
 */
import type { AgentPool, Policy, PolicySet, PolicySetParameter, Project, Workspace } from '../api/types.js';
import { isValidName, lfsPointerProblem } from '../declared/index.js';
import { mapLimit } from '../map-limit.js';
import { isPolicyKind, type NativeKindName } from '../model.js';
import { policyFiles, poolFile, type ExportFile } from './files.js';
import { sameNames } from './names.js';
import { scopeListsNeeded, setFiles, setRefusal, type ScopeNames, type SensitiveReference } from './sets.js';
import type { TreeWriter } from './write-tree.js';
import { byCodeUnit } from '../order.js';

/** What export needs of the API: the lists, one policy read again, and code as stored. */
export interface ExportApi {
  listPolicies(organization: string): Promise<Policy[]>;
  getPolicy(id: string): Promise<Policy>;
  listAgentPools(organization: string): Promise<{ pools: AgentPool[] }>;
  /** A pool's tokens: only their descriptions are written, never a text (the list carries none). */
  listAgentTokens(poolId: string): Promise<Array<{ description: string }>>;
  downloadPolicyBytes(policy: Policy): Promise<Uint8Array | null>;
  listPolicySets(organization: string): Promise<PolicySet[]>;
  listPolicySetParameters(setId: string): Promise<PolicySetParameter[]>;
  listWorkspaces(organization: string): Promise<Workspace[]>;
  listProjects(organization: string): Promise<Project[]>;
}

/** A live resource that could not be exported, and why. */
export interface NotExported {
  resource: 'policy' | 'agent-pool' | 'policy-set';
  name: string;
  reason: string;
}

export interface ExportResult {
  /** The paths written, relative to the folder, sorted. */
  files: string[];
  policies: number;
  pools: number;
  policySets: number;
  /** Versioned sets: their settings are written, their folders must be vendored from where they came. */
  versionedSets: string[];
  /** Sensitive parameters written as `{env: NAME}`, which the operator must allow and fill. */
  sensitive: SensitiveReference[];
  notExported: NotExported[];
}

export interface ExportOptions {
  /** The API's word for the native kind, which names the files; a function is asked as each policy is written (the client may have learned the word from the lists). */
  nativeKind: NativeKindName | (() => NativeKindName);
  /** Policies read at once: the client's own concurrency, whose queue and pacer hold the requests to the rate limit. */
  concurrency: number;
  /** Writes each resource's files as soon as they are read (write-tree.ts). */
  write: TreeWriter;
}

const INVALID_NAME = 'the name is not a valid file name here (letters, digits, - and _)';

/** Reads the organization and writes each resource's files as it is read; resolves with what was and was not written. */
export async function exportOrganization(api: ExportApi, organization: string, options: ExportOptions): Promise<ExportResult> {
  const [policies, poolList, setList] = await Promise.all([api.listPolicies(organization), api.listAgentPools(organization), api.listPolicySets(organization)]);
  const notExported: NotExported[] = [];
  const files: string[] = [];
  const written = async (resource: NotExported['resource'], name: string, made: readonly ExportFile[]): Promise<boolean> => {
    const reason = await options.write(made);
    if (reason !== null) notExported.push({ resource, name, reason });
    else files.push(...made.map((file) => file.path));
    return reason === null;
  };
  const sets = await exportSets(api, organization, setList, { ...options, written, notExported });
  const clashes = sameNames(policies, (policy) => policy.kind);
  const outcomes = await mapLimit(policies, Math.max(1, options.concurrency), async (listed) => {
    const read = await policyExport(api, listed, clashes.get(listed) ?? null, typeof options.nativeKind === 'function' ? options.nativeKind() : options.nativeKind, sets.names);
    if ('reason' in read) {
      notExported.push(read);
      return false;
    }
    return written('policy', listed.name, read.files);
  });
  const poolClashes = sameNames(poolList.pools, () => 'agent pool');
  let pools = 0;
  for (const pool of poolList.pools) {
    const reason = !isValidName(pool.name) ? INVALID_NAME : (poolClashes.get(pool) ?? null);
    if (reason !== null) notExported.push({ resource: 'agent-pool', name: pool.name, reason });
    else if (await written('agent-pool', pool.name, [poolFile(pool, await api.listAgentTokens(pool.id))])) pools += 1;
  }
  files.sort(byCodeUnit);
  notExported.sort((a, b) => byCodeUnit(a.name, b.name));
  return { files, policies: outcomes.filter(Boolean).length, pools, policySets: sets.count, versionedSets: sets.versioned, sensitive: sets.sensitive, notExported };
}

interface SetsWritten {
  /** The name of each set written, by id: the policies name their sets by it. */
  names: Map<string, string>;
  count: number;
  versioned: string[];
  sensitive: SensitiveReference[];
}

/** Writes each set of a kind this tool knows, with a name a repo can hold; the scope lists are read only when a scope needs them. */
async function exportSets(
  api: ExportApi, organization: string, sets: readonly PolicySet[],
  context: { concurrency: number; written: (resource: 'policy-set', name: string, made: readonly ExportFile[]) => Promise<boolean>; notExported: NotExported[] },
): Promise<SetsWritten> {
  const result: SetsWritten = { names: new Map(), count: 0, versioned: [], sensitive: [] };
  const clashes = sameNames(sets, () => 'policy set');
  const exported = sets.filter((set) => {
    const reason = setRefusal(set) ?? clashes.get(set) ?? null;
    if (reason !== null) context.notExported.push({ resource: 'policy-set', name: set.name, reason });
    return reason === null;
  });
  const needed = scopeListsNeeded(exported);
  const [workspaces, projects] = await Promise.all([
    needed.workspaces ? api.listWorkspaces(organization) : Promise.resolve([]),
    needed.projects ? api.listProjects(organization) : Promise.resolve([]),
  ]);
  const names: ScopeNames = { workspaces: new Map(workspaces.map((w) => [w.id, w.name])), projects: new Map(projects.map((p) => [p.id, p.name])) };
  const parameters = await mapLimit(exported, Math.max(1, context.concurrency), (set) => (set.kind === 'native' ? api.listPolicySetParameters(set.id) : Promise.resolve(null)));
  for (const [index, set] of exported.entries()) {
    const made = setFiles(set, parameters[index] ?? null, names);
    if (made.files.length > 0 && !(await context.written('policy-set', set.name, made.files))) continue;
    result.names.set(set.id, set.name);
    result.count += 1;
    if (made.versioned) result.versioned.push(set.name);
    result.sensitive.push(...made.sensitive);
  }
  return result;
}

async function policyExport(
  api: ExportApi, listed: Policy, clash: string | null, nativeKind: NativeKindName, setNames: ReadonlyMap<string, string>,
): Promise<{ files: ExportFile[] } | NotExported> {
  const skip = (reason: string): NotExported => ({ resource: 'policy', name: listed.name, reason });
  if (!isPolicyKind(listed.kind)) return skip(`kind ${listed.kind || '(none)'} is not one this tool manages`);
  if (!isValidName(listed.name)) return skip(INVALID_NAME);
  if (clash !== null) return skip(clash);
  // A list may leave out the policy-set relationship: read the policy itself when the count says there are sets.
  const policy = listed.policySetCount > listed.policySetIds.length ? await api.getPolicy(listed.id) : listed;
  if (policy.policySetCount > policy.policySetIds.length) return skip(`it is in ${policy.policySetCount} policy sets, but the API does not say which`);
  const code = listed.updatedAt === null ? null : await api.downloadPolicyBytes(policy);
  if (code === null) return skip('no code was ever uploaded');
  if (lfsPointerProblem(listed.name, code, code.byteLength) !== null) {
    return skip('its code looks like a Git LFS pointer, which a declared repo refuses (upload the real code, then export again)');
  }
  return { files: policyFiles(policy, code, nativeKind, setNames) };
}
