import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, open, rename, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { StateFileError } from './errors.js';

/**
 * The state dir's layout: one folder per purpose, so that no source name can land on another purpose's files
 * (source names are letters, digits, `-` and `_`; the purposes' folders are fixed names).
 */
export interface StateDirLayout {
  /** A git source's checkout: `git/<source>`. */
  checkout(source: string): string;
  /** A source's pass history: `history/<source>.json`. */
  history(source: string): string;
  /** The suspended sources: `suspensions/suspended.json`. */
  readonly suspensions: string;
  /** Where the suspended sources were kept before they had a folder (`suspended.json`); read once to move them. */
  readonly oldSuspensions: string;
  /** The code caches, one file per organization: `.code-cache/`. */
  readonly codeCache: string;
  /** The findings of finished runs, one file per organization: `evidence-cache/`. */
  readonly evidenceCache: string;
}

export function stateDirLayout(stateDir: string): StateDirLayout {
  return {
    checkout: (source) => path.join(stateDir, 'git', source),
    history: (source) => path.join(stateDir, 'history', sourceFileName(source, '.json')),
    suspensions: path.join(stateDir, 'suspensions', 'suspended.json'),
    oldSuspensions: path.join(stateDir, 'suspended.json'),
    codeCache: path.join(stateDir, '.code-cache'),
    evidenceCache: path.join(stateDir, 'evidence-cache'),
  };
}

/** A file name for a source's state: its name, with anything but letters, digits, `.`, `_` and `-` escaped. */
function sourceFileName(source: string, suffix: string): string {
  return `${source.replace(/[^A-Za-z0-9._-]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)}${suffix}`;
}

/**
 * A readable, unique file name per organization (for the caches kept one file per organization): its name made safe,
 * and a hash that tells apart names made alike.
 */
export function organizationFileName(organization: string, suffix = '.json'): string {
  const safe = organization.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  const hash = createHash('sha256').update(organization, 'utf8').digest('hex').slice(0, 12);
  return `${safe}-${hash}${suffix}`;
}

/**
 * Files and folders of the state dir are group-writable whatever the umask, so that another UID of the same group
 * (OpenShift runs each pod under an arbitrary UID in group 0) can write them after a restart.
 */
export const STATE_FILE_MODE = 0o664;
export const STATE_DIR_MODE = 0o775;

/**
 * The text of a state file, or null when it does not exist. Its size is checked before anything is read: a file
 * over `maxBytes` throws a StateFileError (`too-large`) naming the file and its size, as does one that cannot be read
 * (`unreadable`). What to do then (start afresh, or refuse) is the caller's decision.
 */
export async function readStateText(file: string, maxBytes: number): Promise<string | null> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new StateFileError(file, 'unreadable', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const { size } = await handle.stat();
    if (size > maxBytes) {
      throw new StateFileError(file, 'too-large', `${file} is ${size} bytes, more than the ${maxBytes} a state file of this kind can hold; it is not read`);
    }
    return await handle.readFile('utf8');
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(file, 'unreadable', `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  } finally {
    await handle.close();
  }
}

/**
 * A JSON state file that `check` accepts, or null when it does not exist; throws a StateFileError as readStateText
 * does, (`unsealed`) for a file whose seal `open` refuses (it returns the text within the seal, or null: the state
 * dir's one rule, `state-seal.ts`), and (`corrupt`) for a file that is not JSON (a truncated write) or that `check`
 * refuses.
 */
export async function readStateJson<T>(
  file: string, maxBytes: number, check: (value: unknown) => value is T, open: (text: string) => string | null,
): Promise<T | null> {
  const text = await readStateText(file, maxBytes);
  if (text === null) return null;
  const opened = open(text);
  if (opened === null) throw new StateFileError(file, 'unsealed', `${file} was not written by this tool for this API (its seal does not match: another API token or URL, or a file from elsewhere)`);
  let value: unknown;
  try {
    value = JSON.parse(opened);
  } catch (error) {
    throw new StateFileError(file, 'corrupt', `${file} is not valid JSON (truncated, or written by something else): ${(error as Error).message}`, { cause: error });
  }
  if (!check(value)) throw new StateFileError(file, 'corrupt', `${file} does not hold what the daemon writes there`);
  return value;
}

/**
 * Writes `text` to a temporary file of its own beside `file`, then renames it over `file`: a reader sees the old
 * file or the new one, never a part, and two writers at once each replace the file whole (the last one wins). The
 * file is STATE_FILE_MODE and its folders STATE_DIR_MODE. Throws what went wrong; the caller decides what a failed
 * write means.
 */
export async function writeStateText(file: string, text: string): Promise<void> {
  await makeStateDir(path.dirname(file));
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeThenRename(temporary, file, text);
  } catch (error) {
    throw await explained(error, file);
  }
}

async function writeThenRename(temporary: string, file: string, text: string): Promise<void> {
  try {
    const handle = await open(temporary, 'wx', STATE_FILE_MODE);
    try {
      await handle.chmod(STATE_FILE_MODE);
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** Creates `dir` and its missing parents, each STATE_DIR_MODE; a folder that exists is left as it is. */
export async function makeStateDir(dir: string): Promise<void> {
  let first: string | undefined;
  try {
    first = await mkdir(dir, { recursive: true, mode: STATE_DIR_MODE });
  } catch (error) {
    throw await explained(error, dir);
  }
  if (first === undefined) return;
  // mkdir's mode is reduced by the umask: set it on each folder it created, from the first one down.
  for (let folder = dir; ; folder = path.dirname(folder)) {
    await chmod(folder, STATE_DIR_MODE);
    if (folder === first || path.dirname(folder) === folder) break;
  }
}

/**
 * A failed write in the state dir, said as what it is when the file system is read-only (a container's read-only root
 * with no volume mounted): Node's recursive mkdir reports ENOENT there, so a write probe in the nearest folder that
 * exists decides. Any other failure is returned as it was.
 */
async function explained(error: unknown, target: string): Promise<unknown> {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code !== 'ENOENT' && code !== 'EROFS') return error;
  const parent = await nearestExisting(target);
  if (parent === null || !(await readOnly(parent))) return error;
  const message = `cannot write ${target}: ${parent} is on a read-only file system (EROFS). Mount a writable volume at the state dir `
    + `(an emptyDir or a persistent volume at ${parent}; the image's state dir is /var/lib/policy-pool-sync), or point STATE_DIR `
    + '(state-dir, --state-dir) at a writable folder';
  return Object.assign(new Error(message, { cause: error }), { code: 'EROFS' });
}

async function nearestExisting(target: string): Promise<string | null> {
  for (let folder = path.resolve(target); ; folder = path.dirname(folder)) {
    try {
      if ((await stat(folder)).isDirectory()) return folder;
    } catch {
      // Not there: its parent may be.
    }
    if (path.dirname(folder) === folder) return null;
  }
}

/** Whether a file cannot be created in `dir` because its file system is read-only. */
async function readOnly(dir: string): Promise<boolean> {
  const probe = path.join(dir, `.write-probe-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await (await open(probe, 'wx')).close();
    await unlink(probe);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS';
  }
}
