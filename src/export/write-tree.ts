import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, realpath, unlink } from 'node:fs/promises';
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

/** Writes the files of one resource, all or none: a reason when they were not written (the export lists it and goes on). */
export type TreeWriter = (files: readonly ExportFile[]) => Promise<string | null>;

/**
 * The writer of an export into `dir`, which never writes outside it: `dir` is created, and each folder below it
 * (`policies`, `agent-pools`) must be a real folder, never a symbolic link (refused, naming it, before anything is
 * written); a file is opened without following a link, so a link in a file's place is never written through.
 */
export async function treeWriter(dir: string, folders: readonly string[]): Promise<TreeWriter> {
  await mkdir(dir, { recursive: true });
  const root = await realpath(dir);
  // Every folder is checked before any is made: a refused export writes nothing.
  const missing: string[] = [];
  for (const folder of folders) if (!(await isRealFolder(root, dir, folder))) missing.push(folder);
  for (const folder of missing) await mkdir(path.join(root, folder));
  return async (files) => {
    const written: string[] = [];
    for (const file of files) {
      const reason = await writeNoFollow(root, file);
      if (reason === null) {
        written.push(file.path);
        continue;
      }
      // All or none: a code file without its settings would export the wrong level.
      for (const done of written) await unlink(path.join(root, ...done.split('/'))).catch(() => undefined);
      return reason;
    }
    return null;
  };
}

/** Whether `folder` is a folder under `root` (false: missing); a link or anything but a folder there is refused. */
async function isRealFolder(root: string, dir: string, folder: string): Promise<boolean> {
  const stat = await lstat(path.join(root, folder)).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (stat === null) return false;
  if (stat.isSymbolicLink() || !stat.isDirectory()) {
    const what = stat.isSymbolicLink() ? 'a symbolic link' : 'not a folder';
    throw new UsageError(
      `--export ${dir}: ${path.join(dir, folder)} is ${what}; the export never writes through a link or outside its folder. ` +
        'Remove it, or export into a new folder',
    );
  }
  return true;
}

/**
 * A file one folder deeper than the export's folders (`policy-sets/<name>/policy-set.yaml`): that folder is made, and
 * must then be a real folder, never a link; a reason when it is not.
 */
async function innerFolder(root: string, file: string): Promise<string | null> {
  const parts = file.split('/');
  if (parts.length < 3) return null;
  const folder = path.join(root, ...parts.slice(0, -1));
  await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const stat = await lstat(folder);
  return stat.isSymbolicLink() || !stat.isDirectory() ? `${parts.slice(0, -1).join('/')} is a symbolic link or not a folder in the export folder, which the export never writes through` : null;
}

/** Writes one file under `root` without following a link in its place; a reason when the file system refused its name or a link stands there. */
async function writeNoFollow(root: string, file: ExportFile): Promise<string | null> {
  const abs = path.join(root, ...file.path.split('/'));
  const inner = await innerFolder(root, file.path);
  if (inner !== null) return inner;
  let handle;
  try {
    handle = await open(abs, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return `${file.path} is a symbolic link in the export folder, which the export never writes through`;
    if (code === 'ENAMETOOLONG') return `the file name ${path.basename(file.path)} is too long for the file system`;
    if (code === 'EISDIR') return `${file.path} is a folder in the export folder`;
    throw error;
  }
  try {
    await handle.writeFile(file.bytes);
  } finally {
    await handle.close();
  }
  return null;
}
