import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { readStateText, stateDirLayout } from '../state-dir.js';
import type { SealScope, StateSeal } from '../state-seal.js';
import { openOrganizationCaches, ownDocument, type OrganizationCaches } from './organization-caches.js';
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
  /** What proves a file is this tool's, for this API and organization (`state-seal.ts`); a file it refuses is a miss. */
  seal: StateSeal;
  /** @default MAX_CODE_CACHE_ENTRIES */
  maxEntries?: number;
}

/** The code caches of a run, one per organization, loaded from and saved to the state dir. */
export type CodeCacheStore = OrganizationCaches<CodeCache>;

export function openCodeCacheStore(options: CodeCacheStoreOptions): CodeCacheStore {
  const maxEntries = options.maxEntries ?? MAX_CODE_CACHE_ENTRIES;
  return openOrganizationCaches<CodeCache>({
    folder: stateDirLayout(options.stateDir).codeCache,
    logger: options.logger,
    persist: options.persist,
    async load(file, organization) {
      if (file === null) return createCodeCache([], maxEntries);
      const { entries, sets } = await readEntries(file, organization, options.seal, options.logger);
      return createCodeCache(entries, maxEntries, sets);
    },
    serialize: (organization, cache) => options.seal.seal(scope(organization), serialize(organization, cache)),
    revision: (cache) => cache.revision,
    writeFailed: 'could not write the code cache; the next run downloads the code again',
  });
}

interface CacheContents {
  entries: Array<[string, CodeCacheEntry]>;
  sets: Array<[string, SetFileDigest[]]>;
}

const EMPTY = (): CacheContents => ({ entries: [], sets: [] });

const scope = (organization: string): SealScope => ({ purpose: 'code cache', owner: organization });

/**
 * The entries of the file; none when it is missing, and none with one warning when it is not a code cache we can
 * trust: unsealed or sealed for another API, token or organization (a file a repo committed, or an older version's)
 * is a miss, and the code is downloaded.
 */
async function readEntries(file: string, organization: string, seal: StateSeal, log: Logger): Promise<CacheContents> {
  let text: string | null;
  try {
    text = await readStateText(file, MAX_FILE_BYTES);
  } catch (error) {
    log.warn({ file, error: errorMessage(error) }, 'the code cache file is ignored; it is rebuilt');
    return EMPTY();
  }
  if (text === null) return EMPTY();
  const opened = seal.open(scope(organization), text);
  if (opened === null) {
    log.warn({ file }, 'the code cache file was not written by this tool for this API and organization, and is ignored; it is rebuilt');
    return EMPTY();
  }
  const contents = parse(opened, organization);
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
  const document = ownDocument(text, { format: FORMAT, version: VERSION, organization });
  const { entries, sets } = document ?? {};
  if (!Array.isArray(entries)) return null;
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
