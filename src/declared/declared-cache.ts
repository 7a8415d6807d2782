/**
 * What reading each file of a declared repo gave, kept between the passes of one source: a file whose stamp (size,
 * modification and change times, inode) is unchanged is not read and parsed again. Entries of files that are gone
 * are dropped at the end of each read.
 */
export interface DeclaredCache {
  /** The result for `id` if it was made from the same `stamp`, else `read()`'s, remembered for the next pass. */
  remember<T>(id: string, stamp: string, read: () => T): T;
  /** Ends a read: entries not used since the last `finish` are dropped. */
  finish(): void;
}

export function createDeclaredCache(): DeclaredCache {
  let previous = new Map<string, { stamp: string; value: unknown }>();
  let current = new Map<string, { stamp: string; value: unknown }>();
  return {
    remember<T>(id: string, stamp: string, read: () => T): T {
      const known = current.get(id) ?? previous.get(id);
      const entry = known !== undefined && known.stamp === stamp ? known : { stamp, value: read() };
      current.set(id, entry);
      return entry.value as T;
    },
    finish() {
      previous = current;
      current = new Map();
    },
  };
}

/** No cache: every file is read. */
export const NO_CACHE: DeclaredCache = { remember: (_id, _stamp, read) => read(), finish: () => undefined };
