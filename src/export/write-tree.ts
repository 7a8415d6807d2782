import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from '../errors.js';
import type { ExportFile } from './files.js';

/**
 * Refuses a folder that exists and is not empty, unless `force`: an export never mixes into a repo by accident.
 * A folder that does not exist is created.
 */
export async function checkTarget(dir: string, force: boolean): Promise<void> {
  const entries = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (entries.length > 0 && !force) {
    throw new UsageError(`--export ${dir}: the folder is not empty; export into a new or empty folder, or pass --force to write over files of the same names`);
  }
}

/** Writes each file under `dir`, creating folders. */
export async function writeFiles(dir: string, files: readonly ExportFile[]): Promise<void> {
  for (const file of files) {
    const abs = path.join(dir, ...file.path.split('/'));
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, file.bytes);
  }
}
