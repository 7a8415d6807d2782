/** Remembers, per policy id and `updated-at`, the hash of the code last seen, so unchanged code is not downloaded again. */
export interface CodeCache {
  get(policyId: string, updatedAt: string): string | undefined;
  set(policyId: string, updatedAt: string, hash: string): void;
}

export function createCodeCache(): CodeCache {
  const entries = new Map<string, string>();
  const key = (id: string, updatedAt: string) => `${id}@${updatedAt}`;
  return {
    get: (id, updatedAt) => entries.get(key(id, updatedAt)),
    set(id, updatedAt, hash) {
      for (const existing of entries.keys()) {
        if (existing.startsWith(`${id}@`)) entries.delete(existing);
      }
      entries.set(key(id, updatedAt), hash);
    },
  };
}
