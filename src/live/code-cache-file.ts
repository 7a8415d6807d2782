import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { organizationFileName, readStateText, stateDirLayout, writeStateText } from '../state-dir.js';
import { createCodeCache, MAX_CODE_CACHE_ENTRIES, type CodeCache, type CodeCacheEntry, type SetFileDigest } from './code-cache.js';

/** Written into every file; a file that does not carry both is not ours (or is from another version) and is rebuilt. */
const FORMAT = 'policy-pool-sync code cache';
const VERSION = 1;
/** Larger than MAX_CODE_CACHE_ENTRIES entries can make; a larger file is not read. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
const DIGEST = /^[0-9a-f]{64}$/;

export interface CodeCacheStoreOptions {
  /** The state dir; the files live in its `.code-cache` folder, one per organization. */
  stateDir: string;
  logger: Logger;
  /** false (`--no-cache`): nothing is read or written; each organization gets an empty cache in memory. */
  persist: boolean;
  /** @default MAX_CODE_CACHE_ENTRIES */
  maxEntries?: number;
}

/** The code caches of a run, one per organization, loaded from and saved to the state dir. */
export interface CodeCacheStore {
  /** The organization's cache, read from its file on first use; the same object on every call. */
  forOrganization(organization: string): Promise<CodeCache>;
  /** Writes every cache that changed since it was read or last written. A failed write is a warning, never an error. */
  save(): Promise<void>;
}

interface Loaded {
  cache: CodeCache;
  file: string;
  savedRevision: number;
}

export function openCodeCacheStore(options: CodeCacheStoreOptions): CodeCacheStore {
  const maxEntries = options.maxEntries ?? MAX_CODE_CACHE_ENTRIES;
  const loaded = new Map<string, Promise<Loaded>>();
  const folder = stateDirLayout(options.stateDir).codeCache;
  const log = options.logger;

  async function load(organization: string): Promise<Loaded> {
    const file = path.join(folder, organizationFileName(organization));
    if (!options.persist) return { cache: createCodeCache([], maxEntries), file, savedRevision: 0 };
    const { entries, sets } = await readEntries(file, organization, log);
    return { cache: createCodeCache(entries, maxEntries, sets), file, savedRevision: 0 };
  }

  return {
    forOrganization(organization) {
      let entry = loaded.get(organization);
      if (entry === undefined) {
        entry = load(organization);
        loaded.set(organization, entry);
      }
      return entry.then((l) => l.cache);
    },
    async save() {
      if (!options.persist) return;
      for (const [organization, pending] of loaded) {
        const entry = await pending;
        const revision = entry.cache.revision;
        if (revision === entry.savedRevision) continue;
        try {
          await writeStateText(entry.file, serialize(organization, entry.cache));
          entry.savedRevision = revision;
        } catch (error) {
          log.warn({ file: entry.file, error: errorMessage(error) }, 'could not write the code cache; the next run downloads the code again');
        }
      }
    },
  };
}

interface CacheContents {
  entries: Array<[string, CodeCacheEntry]>;
  sets: Array<[string, SetFileDigest[]]>;
}

const EMPTY = (): CacheContents => ({ entries: [], sets: [] });

/** The entries of the file; none when it is missing, and none with one warning when it is not a code cache we can trust. */
async function readEntries(file: string, organization: string, log: Logger): Promise<CacheContents> {
  let text: string | null;
  try {
    text = await readStateText(file, MAX_FILE_BYTES);
  } catch (error) {
    log.warn({ file, error: errorMessage(error) }, 'the code cache file is ignored; it is rebuilt');
    return EMPTY();
  }
  if (text === null) return EMPTY();
  const contents = parse(text, organization);
  if (contents === null) {
    log.warn({ file }, 'the code cache file is corrupt, truncated or not ours, and is ignored; it is rebuilt');
    return EMPTY();
  }
  return contents;
}

/**
 * The entries of a well-formed file of this version and organization, or null. Every entry is checked: one bad entry
 * discards the file. `sets` (the files of set contents, by digest) may be missing: a file written before it was kept.
 */
function parse(text: string, organization: string): CacheContents | null {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof document !== 'object' || document === null) return null;
  const { format, version, organization: owner, entries, sets } = document as Record<string, unknown>;
  if (format !== FORMAT || version !== VERSION || owner !== organization || !Array.isArray(entries)) return null;
  const result: CacheContents = { entries: [], sets: [] };
  for (const entry of entries as unknown[]) {
    if (!Array.isArray(entry) || entry.length !== 3) return null;
    const [id, updatedAt, digest] = entry as unknown[];
    if (typeof id !== 'string' || id === '' || typeof updatedAt !== 'string' || updatedAt === '') return null;
    if (typeof digest !== 'string' || !DIGEST.test(digest)) return null;
    result.entries.push([id, { updatedAt, digest }]);
  }
  if (sets === undefined) return result;
  if (!Array.isArray(sets)) return null;
  for (const set of sets as unknown[]) {
    if (!Array.isArray(set) || set.length !== 2) return null;
    const [digest, files] = set as unknown[];
    if (typeof digest !== 'string' || !DIGEST.test(digest) || !Array.isArray(files)) return null;
    const checked: SetFileDigest[] = [];
    for (const file of files as unknown[]) {
      if (!Array.isArray(file) || file.length !== 2) return null;
      const [path, sha256] = file as unknown[];
      if (typeof path !== 'string' || path === '' || typeof sha256 !== 'string' || !DIGEST.test(sha256)) return null;
      checked.push({ path, sha256 });
    }
    result.sets.push([digest, checked]);
  }
  return result;
}

/** One entry per line: small diffs, and a truncated file never parses. */
function serialize(organization: string, cache: CodeCache): string {
  const lines: string[] = [];
  for (const [id, { updatedAt, digest }] of cache.entries()) lines.push(JSON.stringify([id, updatedAt, digest]));
  const sets: string[] = [];
  for (const [digest, files] of cache.setContents()) sets.push(JSON.stringify([digest, files.map((f) => [f.path, f.sha256])]));
  const head = `{"format":${JSON.stringify(FORMAT)},"version":${VERSION},"organization":${JSON.stringify(organization)},"entries":[`;
  return `${head}\n${lines.join(',\n')}\n],"sets":[\n${sets.join(',\n')}\n]}\n`;
}
