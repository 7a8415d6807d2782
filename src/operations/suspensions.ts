import { rm } from 'node:fs/promises';
import { errorMessage, StateFileError, UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { readStateJson, stateDirLayout, writeStateText } from '../state-dir.js';
import { withoutSeal, type SealScope, type StateSeal } from '../state-seal.js';

/** Suspended sources, by name: when each was suspended (ISO 8601). */
type SuspensionFile = { suspended: Record<string, string> };

const SCOPE: SealScope = { purpose: 'suspended sources', owner: '' };

/** Far more than any list of sources takes; a larger file is not read. */
const MAX_SUSPENSIONS_BYTES = 1024 * 1024;

/** Which sources are suspended; kept in the state dir, so a suspension survives restarts. */
export interface Suspensions {
  /** When `source` was suspended, or null. */
  since(source: string): string | null;
  /**
   * Suspends `source` and saves the record. A failed save throws (a suspension that would be lost at a restart is
   * not a success), and the source stays suspended until the daemon stops.
   */
  suspend(source: string, at: Date): Promise<void>;
  /** Resumes `source` once the record is saved; a failed save throws and the source stays suspended. */
  resume(source: string): Promise<void>;
}

/**
 * The suspended sources from `suspensions/suspended.json`. The record fails closed: a file that is too large,
 * cannot be read or is not what the daemon writes (a truncated write) stops the start with an error naming it,
 * since resuming every source would apply changes an operator held back. A record in the old place
 * (`suspended.json` at the top of the state dir) is moved to the new one. A record this tool did not seal for this
 * API (`state-seal.ts`: an older version's, one sealed with a token since rotated, or a file from elsewhere) is not
 * trusted to resume anything: every source it names stays suspended, with a warning, until it is resumed.
 */
export async function openSuspensions(stateDir: string, logger: Logger, seal: StateSeal): Promise<Suspensions> {
  const layout = stateDirLayout(stateDir);
  const file = layout.suspensions;
  let read = await readRecord(file, seal, logger);
  if (read === null) {
    read = await readRecord(layout.oldSuspensions, seal, logger);
    if (read !== null) {
      await writeRecord(file, read, seal);
      await rm(layout.oldSuspensions, { force: true });
      logger.info({ from: layout.oldSuspensions, to: file }, 'suspended sources moved to their folder of the state dir');
    }
  }
  const suspended = new Map(Object.entries(read?.suspended ?? {}));
  const save = () => writeRecord(file, { suspended: Object.fromEntries(suspended) }, seal);
  return {
    since: (source) => suspended.get(source) ?? null,
    async suspend(source, at) {
      if (suspended.has(source)) return;
      suspended.set(source, at.toISOString());
      await save();
    },
    async resume(source) {
      const since = suspended.get(source);
      if (since === undefined) return;
      suspended.delete(source);
      try {
        await save();
      } catch (error) {
        suspended.set(source, since);
        throw error;
      }
    },
  };
}

async function readRecord(file: string, seal: StateSeal, logger: Logger): Promise<SuspensionFile | null> {
  try {
    return await readStateJson(file, MAX_SUSPENSIONS_BYTES, isSuspensionFile, (text) => seal.open(SCOPE, text));
  } catch (error) {
    if (error instanceof StateFileError && error.reason === 'unsealed') return unsealedRecord(file, logger);
    throw new UsageError(
      `the record of suspended sources cannot be used: ${errorMessage(error)}. The daemon does not start, as it cannot tell which sources ` +
        `were suspended: restore ${file} from a backup, or delete it to resume every source`,
      { cause: error },
    );
  }
}

/** An unsealed record: the sources it names stay suspended (it can hold changes back, never let them through). */
async function unsealedRecord(file: string, logger: Logger): Promise<SuspensionFile | null> {
  const read = await readStateJson(file, MAX_SUSPENSIONS_BYTES, isSuspensionFile, withoutSeal).catch((error: unknown) => {
    throw new UsageError(`the record of suspended sources cannot be used: ${errorMessage(error)}. The daemon does not start, as it cannot tell which sources `
      + `were suspended: restore ${file} from a backup, or delete it to resume every source`, { cause: error });
  });
  if (read !== null) {
    logger.warn({ file, sources: Object.keys(read.suspended) }, 'the record of suspended sources was not sealed by this tool for this API; '
      + 'the sources it names stay suspended until they are resumed');
  }
  return read;
}

async function writeRecord(file: string, record: SuspensionFile, seal: StateSeal): Promise<void> {
  try {
    await writeStateText(file, seal.seal(SCOPE, `${JSON.stringify(record)}\n`));
  } catch (error) {
    throw new Error(`cannot save the suspended sources to ${file}: ${errorMessage(error)}`, { cause: error });
  }
}

function isSuspensionFile(value: unknown): value is SuspensionFile {
  if (typeof value !== 'object' || value === null) return false;
  const suspended = (value as { suspended?: unknown }).suspended;
  return typeof suspended === 'object' && suspended !== null && !Array.isArray(suspended) && Object.values(suspended).every((v) => typeof v === 'string');
}
