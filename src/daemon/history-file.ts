import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { HISTORY_LENGTH, type PassRecord } from './pass-record.js';
import { readStateFile, sourceFileName, writeStateFile } from './state-file.js';

type HistoryFile = { source: string; passes: PassRecord[] };

/** A source's last passes, newest first, kept in the state dir's `history` folder so that a restart keeps them. */
export interface PassHistory {
  readonly passes: readonly PassRecord[];
  /** Adds a finished pass (at most HISTORY_LENGTH are kept) and writes the file; a failed write is a warning. */
  add(record: PassRecord): Promise<void>;
}

export async function openPassHistory(stateDir: string, source: string, logger: Logger): Promise<PassHistory> {
  const file = path.join(stateDir, 'history', sourceFileName(source, '.json'));
  const read = await readStateFile(file, isHistoryFile, logger);
  const passes: PassRecord[] = read !== null && read.source === source ? read.passes.slice(0, HISTORY_LENGTH) : [];
  let writing = Promise.resolve();
  return {
    passes,
    add(record) {
      passes.unshift(record);
      passes.length = Math.min(passes.length, HISTORY_LENGTH);
      const snapshot: HistoryFile = { source, passes: [...passes] };
      // Writes are chained, so an older snapshot never lands after a newer one.
      writing = writing.then(() =>
        writeStateFile(file, snapshot).catch((error: unknown) => logger.warn({ file, error: errorMessage(error) }, 'cannot save the pass history')),
      );
      return writing;
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
