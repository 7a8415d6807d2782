import { coalescedWrites } from '../coalesced-writes.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { readStateJson, stateDirLayout, writeStateText } from '../state-dir.js';
import type { SealScope, StateSeal } from '../state-seal.js';
import { HISTORY_LENGTH, type PassRecord } from './pass-record.js';

type HistoryFile = { source: string; passes: PassRecord[] };

/** Far more than HISTORY_LENGTH records can take; a larger file is not read. */
const MAX_HISTORY_BYTES = 16 * 1024 * 1024;

/** A source's last passes, newest first, kept in the state dir's `history` folder so that a restart keeps them. */
export interface PassHistory {
  readonly passes: readonly PassRecord[];
  /** Adds a finished pass (at most HISTORY_LENGTH are kept) and writes the file; a failed write is a warning. */
  add(record: PassRecord): Promise<void>;
}

/**
 * The source's history; a file that is too large, unreadable, corrupt or not sealed by this tool for this API and
 * source (`state-seal.ts`) is ignored with a warning naming it (the history starts afresh).
 */
export async function openPassHistory(stateDir: string, source: string, logger: Logger, seal: StateSeal): Promise<PassHistory> {
  const file = stateDirLayout(stateDir).history(source);
  const scope: SealScope = { purpose: 'pass history', owner: source };
  const read = await readStateJson(file, MAX_HISTORY_BYTES, isHistoryFile, (text) => seal.open(scope, text)).catch((error: unknown) => {
    logger.warn({ file, error: errorMessage(error) }, 'the pass history file is ignored; the history starts afresh');
    return null;
  });
  const passes: PassRecord[] = read !== null && read.source === source ? read.passes.slice(0, HISTORY_LENGTH) : [];
  // One write at a time, of the newest passes when it starts: an older snapshot never lands after a newer one, and
  // passes ending while a write is under way are one more write after it.
  const write = coalescedWrites(async () => {
    const text = seal.seal(scope, `${JSON.stringify({ source, passes } satisfies HistoryFile)}\n`);
    await writeStateText(file, text).catch((error: unknown) => logger.warn({ file, error: errorMessage(error) }, 'cannot save the pass history'));
  });
  return {
    passes,
    add(record) {
      passes.unshift(record);
      passes.length = Math.min(passes.length, HISTORY_LENGTH);
      return write();
    },
  };
}

function isHistoryFile(value: unknown): value is HistoryFile {
  if (typeof value !== 'object' || value === null) return false;
  const { source, passes } = value as { source?: unknown; passes?: unknown };
  return typeof source === 'string' && Array.isArray(passes) && passes.every(isPassRecord);
}

function isPassRecord(value: unknown): value is PassRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r['startedAt'] === 'string' && typeof r['finishedAt'] === 'string' && typeof r['result'] === 'string' && Array.isArray(r['changes']) &&
    Array.isArray(r['warnings']) && Array.isArray(r['errors']);
}
