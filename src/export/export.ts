/**
 * `--export DIR`: a declared repo written from the live organization, so that teams arriving with policies and pools
 * made by hand, by the Terraform provider or by VCS policy sets start from what they have. Reads only: no write to
 * the API.
 */
import type { AgentPool, Policy } from '../api/types.js';
import { isValidName } from '../declared/index.js';
import type { NativeKindName } from '../model.js';
import { policyFiles, poolFile, type ExportFile } from './files.js';

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
  files: ExportFile[];
  policies: number;
  pools: number;
  notExported: NotExported[];
}

/** Code reads under way at once (the client paces the requests itself). */
const READS_AT_ONCE = 16;

/** Reads the organization into the files of a declared repo, sorted by path. */
/**
 * `nativeKind`: the API's word for the native kind, which names the files; a function is asked once the lists are read
 * (the client may have learned the word from them).
 */
export async function exportOrganization(api: ExportApi, organization: string, nativeKind: NativeKindName | (() => NativeKindName)): Promise<ExportResult> {
  const [policies, poolList] = await Promise.all([api.listPolicies(organization), api.listAgentPools(organization)]);
  const notExported: NotExported[] = [];
  const files: ExportFile[] = [];
  let exportedPolicies = 0;
  const results = await mapLimited(policies, READS_AT_ONCE, (policy) => policyExport(api, policy, typeof nativeKind === 'function' ? nativeKind() : nativeKind));
  for (const result of results) {
    if ('reason' in result) notExported.push(result);
    else {
      files.push(...result.files);
      exportedPolicies += 1;
    }
  }
  let pools = 0;
  for (const pool of poolList.pools) {
    if (!isValidName(pool.name)) {
      notExported.push({ resource: 'agent-pool', name: pool.name, reason: 'the name is not a valid file name here (letters, digits, - and _)' });
      continue;
    }
    files.push(poolFile(pool));
    pools += 1;
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  notExported.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { files, policies: exportedPolicies, pools, notExported };
}

async function policyExport(api: ExportApi, listed: Policy, nativeKind: NativeKindName): Promise<{ files: ExportFile[] } | NotExported> {
  const skip = (reason: string): NotExported => ({ resource: 'policy', name: listed.name, reason });
  if (listed.foreignKind !== null) return skip(`kind ${listed.foreignKind || '(none)'} is not one this tool manages`);
  if (!isValidName(listed.name)) return skip('the name is not a valid file name here (letters, digits, - and _)');
  // A list may leave out the policy-set relationship: read the policy itself when the count says there are sets.
  const policy = listed.policySetCount > listed.policySetIds.length ? await api.getPolicy(listed.id) : listed;
  if (policy.policySetCount > policy.policySetIds.length) return skip(`it is in ${policy.policySetCount} policy sets, but the API does not say which`);
  const code = listed.updatedAt === null ? null : await api.downloadPolicyBytes(policy);
  if (code === null) return skip('no code was ever uploaded');
  return { files: policyFiles(policy, code, nativeKind) };
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let index = next++; index < items.length; index = next++) results[index] = await fn(items[index] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
