import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage } from '../errors.js';
import type { Logger } from '../logger.js';

/** Larger than any state file the daemon writes; a larger file is not read. */
const MAX_STATE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * A JSON file of the state dir, or null when it does not exist. A file that cannot be read or parsed, or that `check`
 * refuses, is ignored with a warning (the daemon starts afresh), as the code cache does.
 */
export async function readStateFile<T>(file: string, check: (value: unknown) => value is T, logger: Logger): Promise<T | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    logger.warn({ file, error: errorMessage(error) }, 'cannot read a state file; ignoring it');
    return null;
  }
  try {
    if (text.length > MAX_STATE_FILE_BYTES) throw new Error('the file is too large');
    const value: unknown = JSON.parse(text);
    if (check(value)) return value;
    throw new Error('unexpected content');
  } catch (error) {
    logger.warn({ file, error: errorMessage(error) }, 'a state file is corrupt; ignoring it');
    return null;
  }
}

/** Writes a temporary file beside `file`, then renames it over `file`: a reader sees the old file or the new one, never a part. */
export async function writeStateFile(file: string, value: unknown): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(value)}\n`, 'utf8');
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** A file name for a source's state: its name, with anything but letters, digits, `.`, `_` and `-` escaped. */
export function sourceFileName(source: string, suffix: string): string {
  return `${source.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}${suffix}`;
}
