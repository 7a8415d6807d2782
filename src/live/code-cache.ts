export { codeDigest } from '../code-content.js';

/** What the cache holds of one policy: the digest of its code as of its `updated-at`. */
export interface CodeCacheEntry {
  updatedAt: string;
  digest: string;
}

/**
 * Remembers, per policy id, the digest of its code as of an `updated-at`, so unchanged code is not downloaded
 * again. Every operation is O(1) but `retain`, which is linear in the entries.
 */
export interface CodeCache {
  /** The digest for this id, if the cached `updated-at` is this one; a changed `updated-at` misses. */
  get(policyId: string, updatedAt: string): string | undefined;
  set(policyId: string, updatedAt: string, digest: string): void;
  /** Forgets every policy not in `ids` (the organization's policies that exist): deleted ones are not kept. */
  retain(ids: Iterable<string>): void;
  /** Every entry, least recently set first. */
  entries(): IterableIterator<[string, CodeCacheEntry]>;
  readonly size: number;
  /** Bumped by every change, so an owner can tell whether there is anything new to save. */
  readonly revision: number;
}

/** Enough for any organization we know of; past it the entries set longest ago are dropped first. */
export const MAX_CODE_CACHE_ENTRIES = 200_000;

export function createCodeCache(initial: Iterable<[string, CodeCacheEntry]> = [], maxEntries = MAX_CODE_CACHE_ENTRIES): CodeCache {
  const entries = new Map<string, CodeCacheEntry>(initial);
  let revision = 0;
  const trim = () => {
    for (const id of entries.keys()) {
      if (entries.size <= maxEntries) break;
      entries.delete(id);
    }
  };
  trim();
  return {
    get(id, updatedAt) {
      const entry = entries.get(id);
      return entry !== undefined && entry.updatedAt === updatedAt ? entry.digest : undefined;
    },
    set(id, updatedAt, digest) {
      const entry = entries.get(id);
      if (entry !== undefined && entry.updatedAt === updatedAt && entry.digest === digest) return;
      // Deleted first, so insertion order is the order of the last set: the oldest are trimmed first.
      entries.delete(id);
      entries.set(id, { updatedAt, digest });
      trim();
      revision += 1;
    },
    retain(ids) {
      const keep = new Set(ids);
      for (const id of entries.keys()) {
        if (keep.has(id)) continue;
        entries.delete(id);
        revision += 1;
      }
    },
    entries: () => entries.entries(),
    get size() {
      return entries.size;
    },
    get revision() {
      return revision;
    },
  };
}
