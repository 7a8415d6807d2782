/**
 * The findings of finished runs kept in the state dir (`evidence-cache/`, one file per organization), so that a daemon
 * reads each finished run once across passes and restarts. Bounded twice: by entries (the runs used longest ago are
 * forgotten first, `createRunCache`) and by bytes (a file is written from the most recently used run back, until
 * MAX_FILE_BYTES). A file that is missing, too large, corrupt or not ours is an empty cache (one warning), never an
 * error; a failed write is a warning. Every entry read is checked: its ids of their shapes (ids.ts), its words strings.
 */
import { createRunCache, MAX_EVIDENCE_CACHE_ENTRIES, type RunCache } from '../api/evidence-cache.js';
import type { RunFindings } from '../api/evidence-types.js';
import { isId } from '../api/ids.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { readStateText, stateDirLayout } from '../state-dir.js';
import type { SealScope, StateSeal } from '../state-seal.js';
import { openOrganizationCaches, ownDocument, type OrganizationCaches } from './organization-caches.js';

const FORMAT = 'policy-pool-sync evidence cache';
/** 2: findings carry the run's kind, its policy checks and its stages that ended short; a file of version 1 is rebuilt. */
const VERSION = 2;
/** The most a file holds; its runs used longest ago are left out past it. */
export const MAX_EVIDENCE_FILE_BYTES = 32 * 1024 * 1024;

export interface EvidenceCacheStoreOptions {
  /** The state dir; the files live in its `evidence-cache` folder, one per organization. */
  stateDir: string;
  logger: Logger;
  /** false (`--no-cache`, or a cold CI run): nothing is read or written; each organization gets an empty cache. */
  persist: boolean;
  /** What proves a file is this tool's, for this API and organization (`state-seal.ts`); a file it refuses is a miss. */
  seal: StateSeal;
  /** @default MAX_EVIDENCE_CACHE_ENTRIES */
  maxEntries?: number;
  /** @default MAX_EVIDENCE_FILE_BYTES */
  maxBytes?: number;
}

/** The evidence caches of a run, one per organization, loaded from and saved to the state dir. */
export type EvidenceCacheStore = OrganizationCaches<RunCache>;

export function openEvidenceCacheStore(options: EvidenceCacheStoreOptions): EvidenceCacheStore {
  const maxEntries = options.maxEntries ?? MAX_EVIDENCE_CACHE_ENTRIES;
  const maxBytes = options.maxBytes ?? MAX_EVIDENCE_FILE_BYTES;
  return openOrganizationCaches<RunCache>({
    folder: stateDirLayout(options.stateDir).evidenceCache,
    logger: options.logger,
    persist: options.persist,
    load: async (file, organization) => createRunCache(file === null ? [] : await readEntries(file, organization, maxBytes, options.seal, options.logger), maxEntries),
    serialize: (organization, cache) => options.seal.seal(scope(organization), serialize(organization, cache, maxBytes - SEAL_LINE_BYTES)),
    revision: (cache) => cache.revision,
    writeFailed: 'could not write the evidence cache; the next run reads those runs again',
  });
}

/** The seal's first line, kept within the file's byte bound. */
const SEAL_LINE_BYTES = 128;

const scope = (organization: string): SealScope => ({ purpose: 'evidence cache', owner: organization });

/**
 * The runs of the file; none when it is missing, and none with one warning when it cannot be trusted: a file this tool
 * did not seal for this API, token and organization (a forged one committed into the state dir) is a miss, and those
 * runs are read from the API again.
 */
async function readEntries(file: string, organization: string, maxBytes: number, seal: StateSeal, log: Logger): Promise<RunFindings[]> {
  let text: string | null;
  try {
    text = await readStateText(file, maxBytes);
  } catch (error) {
    log.warn({ file, error: errorMessage(error) }, 'the evidence cache file is ignored; it is rebuilt');
    return [];
  }
  if (text === null) return [];
  const opened = seal.open(scope(organization), text);
  if (opened === null) {
    log.warn({ file }, 'the evidence cache file was not written by this tool for this API and organization, and is ignored; it is rebuilt');
    return [];
  }
  const entries = parse(opened, organization);
  if (entries === null) log.warn({ file }, 'the evidence cache file is corrupt, truncated or not ours, and is ignored; it is rebuilt');
  return entries ?? [];
}

/** The entries of a well-formed file of this version and organization, or null: one bad entry discards the file. */
export function parse(text: string, organization: string): RunFindings[] | null {
  const runs = ownDocument(text, { format: FORMAT, version: VERSION, organization })?.['runs'];
  if (!Array.isArray(runs)) return null;
  return runs.every(isFindings) ? (runs as RunFindings[]) : null;
}

const isText = (value: unknown): value is string => typeof value === 'string';

function isRecordOf(value: unknown, keys: readonly string[]): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && keys.every((key) => isText((value as Record<string, unknown>)[key]));
}

/** A finished run's findings, as this module writes them. */
function isFindings(value: unknown): value is RunFindings {
  if (!isRecordOf(value, ['runId', 'workspaceId', 'createdAt', 'status'])) return false;
  const { runId, workspaceId, finished, evaluations, outcomes, setErrors, checks, stages, kind } = value;
  if (!isId('run', runId) || !isId('workspace', workspaceId) || finished !== true) return false;
  return Array.isArray(evaluations) && evaluations.every((e) => isRecordOf(e, ['id', 'status', 'policyKind']) && isId('policy-evaluation', e.id))
    && Array.isArray(outcomes) && outcomes.every((o) => isRecordOf(o, ['policy', 'policySet', 'status', 'enforcementLevel', 'via', 'kind']) && (o.via === 'check' || o.via === 'evaluation'))
    && Array.isArray(setErrors) && setErrors.every((e) => isRecordOf(e, ['policySet', 'error']))
    && Array.isArray(checks) && checks.every((c) => isRecordOf(c, ['id', 'status']) && isId('policy-check', c.id) && typeof c.detail === 'boolean' && Number.isInteger(c.failed))
    && Array.isArray(stages) && stages.every((t) => isRecordOf(t, ['stage', 'status']))
    && isRecordOf(kind, ['source', 'triggerReason']) && ['planOnly', 'refreshOnly', 'isDestroy'].every((key) => typeof kind[key] === 'boolean');
}

/** One run per line, least recently used first, the file kept under `maxBytes` by leaving out the runs used longest ago. */
function serialize(organization: string, cache: RunCache, maxBytes: number): string {
  const head = `{"format":${JSON.stringify(FORMAT)},"version":${VERSION},"organization":${JSON.stringify(organization)},"runs":[\n`;
  const tail = '\n]}\n';
  const lines = [...cache.entries()].map((findings) => JSON.stringify(findings));
  let bytes = Buffer.byteLength(head) + Buffer.byteLength(tail);
  let first = lines.length;
  while (first > 0) {
    const size = Buffer.byteLength(lines[first - 1] ?? '') + 2;
    if (bytes + size > maxBytes) break;
    bytes += size;
    first -= 1;
  }
  return `${head}${lines.slice(first).join(',\n')}${tail}`;
}
