/**
 * `--export DIR`: a declared repo written from the live organization, so that teams arriving with policies and pools
 * made by hand, by the Terraform provider or by VCS policy sets start from what they have. Reads only: no write to
 * the API. What it writes is a repo the tool's own `--validate` accepts: what could not be written so is listed instead.
 */
import type { AgentPool, Policy } from '../api/types.js';
import { isValidName, lfsPointerProblem } from '../declared/index.js';
import { mapLimit } from '../map-limit.js';
import { isPolicyKind, type NativeKindName } from '../model.js';
import { policyFiles, poolFile, type ExportFile } from './files.js';
import { sameNames } from './names.js';
import type { TreeWriter } from './write-tree.js';

/** What export needs of the API: the lists, one policy read again, and code as stored. */
export interface ExportApi {
  listPolicies(organization: string): Promise<Policy[]>;
  getPolicy(id: string): Promise<Policy>;
  listAgentPools(organization: string): Promise<{ pools: AgentPool[] }>;
  downloadPolicyBytes(policy: Policy): Promise<Uint8Array | null>;
}

/** A live resource that could not be exported, and why. */
export interface NotExported {
  resource: 'policy' | 'agent-pool';
  name: string;
  reason: string;
}

export interface ExportResult {
  /** The paths written, relative to the folder, sorted. */
  files: string[];
  policies: number;
  pools: number;
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
  const [policies, poolList] = await Promise.all([api.listPolicies(organization), api.listAgentPools(organization)]);
  const notExported: NotExported[] = [];
  const files: string[] = [];
  const written = async (resource: NotExported['resource'], name: string, made: readonly ExportFile[]): Promise<boolean> => {
    const reason = await options.write(made);
    if (reason !== null) notExported.push({ resource, name, reason });
    else files.push(...made.map((file) => file.path));
    return reason === null;
  };
  const clashes = sameNames(policies, (policy) => policy.kind);
  const outcomes = await mapLimit(policies, Math.max(1, options.concurrency), async (listed) => {
    const read = await policyExport(api, listed, clashes.get(listed) ?? null, typeof options.nativeKind === 'function' ? options.nativeKind() : options.nativeKind);
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
    else if (await written('agent-pool', pool.name, [poolFile(pool)])) pools += 1;
  }
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  notExported.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { files, policies: outcomes.filter(Boolean).length, pools, notExported };
}

async function policyExport(api: ExportApi, listed: Policy, clash: string | null, nativeKind: NativeKindName): Promise<{ files: ExportFile[] } | NotExported> {
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
  return { files: policyFiles(policy, code, nativeKind) };
}
