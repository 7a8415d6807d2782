import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';
import { readStateFile, writeStateFile } from './state-file.js';

/** Suspended sources, by name: when each was suspended (ISO 8601). */
type SuspensionFile = { suspended: Record<string, string> };

/** Which sources are suspended; kept in the state dir, so a suspension survives restarts. */
export interface Suspensions {
  /** When `source` was suspended, or null. */
  since(source: string): string | null;
  suspend(source: string, at: Date): Promise<void>;
  resume(source: string): Promise<void>;
}

export const SUSPENSIONS_FILE = 'suspended.json';

export async function openSuspensions(stateDir: string, logger: Logger): Promise<Suspensions> {
  const file = path.join(stateDir, SUSPENSIONS_FILE);
  const read = await readStateFile(file, isSuspensionFile, logger);
  const suspended = new Map(Object.entries(read?.suspended ?? {}));
  async function save(): Promise<void> {
    try {
      await writeStateFile(file, { suspended: Object.fromEntries(suspended) });
    } catch (error) {
      logger.warn({ file, error: errorMessage(error) }, 'cannot save the suspended sources; the change holds until a restart');
    }
  }
  return {
    since: (source) => suspended.get(source) ?? null,
    async suspend(source, at) {
      if (suspended.has(source)) return;
      suspended.set(source, at.toISOString());
      await save();
    },
    async resume(source) {
      if (!suspended.delete(source)) return;
      await save();
    },
  };
}

function isSuspensionFile(value: unknown): value is SuspensionFile {
  if (typeof value !== 'object' || value === null) return false;
  const suspended = (value as { suspended?: unknown }).suspended;
  return typeof suspended === 'object' && suspended !== null && Object.values(suspended).every((v) => typeof v === 'string');
}
