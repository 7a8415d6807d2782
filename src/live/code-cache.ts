export { codeDigest } from '../code-content.js';

/** What the cache holds of one policy: the digest of its code as of its `updated-at`. */
export interface CodeCacheEntry {
  updatedAt: string;
  digest: string;
}

/** A file of a versioned policy set's content: its path in the set's folder and the sha256 (hex) of its bytes. */
export interface SetFileDigest {
  path: string;
  sha256: string;
}

/**
 * Remembers, per policy id, the digest of its code as of an `updated-at`, so unchanged code is not downloaded
 * again; and, per content digest of a versioned policy set, the files that content holds, so a plan can name the files
 * that changed since the content the live set's marker records (the service gives no version's files back). Every
 * operation is O(1) but `retain`, which is linear in the entries.
 */
export interface CodeCache {
  /** The digest for this id, if the cached `updated-at` is this one; a changed `updated-at` misses. */
  get(policyId: string, updatedAt: string): string | undefined;
  set(policyId: string, updatedAt: string, digest: string): void;
  /** Forgets every policy not in `ids` (the organization's policies that exist): deleted ones are not kept. */
  retain(ids: Iterable<string>): void;
  /** Every entry, least recently set first. */
  entries(): IterableIterator<[string, CodeCacheEntry]>;
  /** The files of the set content with this digest, if this cache has seen it. */
  setFiles(digest: string): readonly SetFileDigest[] | undefined;
  /** Remembers the files of a set content, by its digest; the contents seen longest ago are forgotten first. */
  rememberSetFiles(digest: string, files: readonly SetFileDigest[]): void;
  /** Every set content remembered, least recently remembered first. */
  setContents(): IterableIterator<[string, readonly SetFileDigest[]]>;
  readonly size: number;
  /** Bumped by every change, so an owner can tell whether there is anything new to save. */
  readonly revision: number;
}

/** Enough for any organization we know of; past it the entries set longest ago are dropped first. */
export const MAX_CODE_CACHE_ENTRIES = 200_000;
/**
 * Set contents remembered per organization: each set's content now and a few before it. A plan names the changed
 * files only when the content the live set records is among them.
 */
export const MAX_SET_CONTENTS = 32;

export function createCodeCache(
  initial: Iterable<[string, CodeCacheEntry]> = [],
  maxEntries = MAX_CODE_CACHE_ENTRIES,
  initialSets: Iterable<[string, readonly SetFileDigest[]]> = [],
): CodeCache {
  const entries = new Map<string, CodeCacheEntry>(initial);
  const sets = new Map<string, readonly SetFileDigest[]>(initialSets);
  let revision = 0;
  const trimSets = () => {
    for (const digest of sets.keys()) {
      if (sets.size <= MAX_SET_CONTENTS) break;
      sets.delete(digest);
    }
  };
  trimSets();
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
    setFiles: (digest) => sets.get(digest),
    rememberSetFiles(digest, files) {
      const known = sets.get(digest);
      // Deleted first, so insertion order is the order of the last time it was seen: the oldest are trimmed first.
      // Seeing a known content again moves it without counting as a change: an idle daemon writes nothing.
      sets.delete(digest);
      sets.set(digest, known ?? files.map(({ path, sha256 }) => ({ path, sha256 })));
      trimSets();
      if (known === undefined) revision += 1;
    },
    setContents: () => sets.entries(),
    get size() {
      return entries.size;
    },
    get revision() {
      return revision;
    },
  };
}
