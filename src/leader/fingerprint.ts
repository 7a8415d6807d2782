import { createHash } from 'node:crypto';

/**
 * What a replica syncs, as a short digest of its sources' names and organizations (in any order): the replicas of one
 * deployment share it, and a deployment that syncs other organizations under the same lease name has another.
 */
export function syncFingerprint(sources: readonly { name: string; organization: string }[]): string {
  const pairs = sources.map((s) => [s.name, s.organization]);
  pairs.sort(byNameThenOrganization);
  return createHash('sha256').update(JSON.stringify(pairs)).digest('hex').slice(0, 16);
}

function byNameThenOrganization(a: string[], b: string[]): number {
  return a.join('\u0000') < b.join('\u0000') ? -1 : 1;
}
