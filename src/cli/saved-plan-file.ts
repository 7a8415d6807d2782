import { readFile } from 'node:fs/promises';
import { errorMessage, UsageError } from '../errors.js';
import { parseSavedPlan } from '../plan/saved-read.js';
import type { SavedPlan } from '../plan/saved.js';

/** The text of a plan saved with `--dry-run --out FILE`; a file that cannot be read is a usage error naming it. */
export async function readSavedPlanText(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the saved plan ${file}: ${errorMessage(error)}`);
  }
}

/** A saved plan's text and what it holds, read back key by key; a file that is not one is a usage error naming it. */
export async function readSavedPlanFile(file: string): Promise<{ text: string; plan: SavedPlan }> {
  const text = await readSavedPlanText(file);
  try {
    return { text, plan: parseSavedPlan(text, file) };
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}
