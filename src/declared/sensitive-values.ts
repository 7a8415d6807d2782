/**
 * Sensitive values: what a policy set's `{env: NAME}` and `{file: PATH}` read, within what the operator allows
 * (config/parameter-allowance.ts). Nothing is read before it is allowed; a file is opened only inside the allowed
 * folder by its real path, without following a link and without blocking, and read only when it is a regular file, to
 * at most its cap. A problem names the reference as written in the repo, never a path of this host.
 */
import { closeSync, fstatSync, openSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { envRefusal, isNeverReadable, isNeverReadableInode, NO_FOLDER, NO_PARAMETERS } from '../config/parameter-allowance.js';
import { isInside } from '../path-inside.js';
import type { ParameterAllowance } from '../config/types.js';
import { fillFrom, OPEN_FLAGS } from './read-file.js';

/** The largest file a sensitive value is read from. */
export const MAX_PARAMETER_FILE_BYTES = 65_536;

/** Where sensitive values are read: the environment given to the run, and what the operator allows. */
export interface SensitiveContext {
  env: NodeJS.ProcessEnv;
  /** @default nothing allowed */
  allowance?: ParameterAllowance;
  /** The repo's real root: a file inside it is refused (a sensitive value never lives in git); null: not checked. */
  realRoot: string | null;
  /**
   * Only whether each reference is allowed, judged by its name and its path as written; nothing is read (`--validate`,
   * which sends nothing, and may run where the values are not given, as a fork's pull request). @default false
   */
  allowedOnly?: boolean;
}

export type Read = { value: string | null } | { problem: string };

/** `env:NAME` or `file:PATH`: where a sensitive value comes from, as the plan records it (never the value). */
export function sensitiveFrom(ref: { env?: string; file?: string }): string {
  return ref.env !== undefined ? `env:${ref.env}` : `file:${ref.file ?? ''}`;
}

/** The value `from` (`env:NAME`, `file:PATH`) names, when the operator allows it. */
export function readSensitive(from: string, context: SensitiveContext): Read {
  const allowance = context.allowance ?? NO_PARAMETERS;
  if (from.startsWith('env:')) return fromEnv(from.slice(4), allowance, context);
  return fromFile(from.slice(5), allowance, context);
}

function fromEnv(name: string, allowance: ParameterAllowance, { env, allowedOnly }: SensitiveContext): Read {
  const refusal = envRefusal(name, allowance);
  if (refusal !== null) return { problem: refusal };
  if (allowedOnly === true) return { value: null };
  const value = env[name];
  return value === undefined || value === '' ? { problem: `the environment variable ${name} is not set` } : { value };
}

/**
 * The file `written` (relative to the allowed folder, or absolute inside it). Judged by where it leads: its real path
 * must be inside the folder's real path, outside every file and folder the tool never lets a parameter read, and
 * outside the repo; then it is opened by that real path with O_NOFOLLOW (a link put there since is not followed) and
 * O_NONBLOCK (a FIFO never blocks), and read only as a regular file within the cap.
 */
function fromFile(written: string, allowance: ParameterAllowance, { realRoot, allowedOnly }: SensitiveContext): Read {
  // Named by the parameter's key only (the caller's prefix): /status must not tell which paths exist on this host.
  const what = 'its file';
  if (allowance.files === null) return { problem: `${what} is not allowed: ${NO_FOLDER}` };
  if (written.includes('\0')) return { problem: `${what} names a path holding a NUL character, which no file's path can hold` };
  const target = path.resolve(allowance.files, written);
  if (isNeverReadable(target, allowance)) return { problem: `${what} is one this tool never lets a parameter read` };
  if (!isInside(path.resolve(allowance.files), target)) return { problem: `${what} is outside the folder the operator allows (--parameter-files)` };
  if (allowedOnly === true) return { value: null };
  const folder = realOf(allowance.files);
  const real = realOf(target);
  if ('code' in folder) return { problem: `${what} cannot be read: the folder the operator allows (--parameter-files) cannot be read${unresolved(folder.code)}` };
  if ('code' in real) return { problem: real.code === 'ENOENT' ? `${what} cannot be read: no such file in the folder the operator allows` : `${what} cannot be read${unresolved(real.code)}` };
  if (isNeverReadable(real.real, allowance)) return { problem: `${what} leads to a file this tool never lets a parameter read` };
  if (!isInside(folder.real, real.real)) return { problem: `${what} leads out of the folder the operator allows (--parameter-files), through a link` };
  if (realRoot !== null && isInside(realRoot, real.real)) return { problem: `${what} is inside the repo; a sensitive value never lives in git` };
  const read = readRegularFile(real.real, allowance);
  return 'problem' in read ? { problem: `${what} ${read.problem}` } : read;
}

function realOf(file: string): { real: string } | { code: string } {
  try {
    return { real: realpathSync(file) };
  } catch (error) {
    return { code: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
}

/** Why a path did not resolve, said as what it is: a loop of links, a folder on the way that is a file. */
function unresolved(code: string): string {
  if (code === 'ELOOP') return ': its links lead round in a loop (ELOOP), or through too many links';
  if (code === 'ENOTDIR') return ': a folder on its way is a file (ENOTDIR)';
  if (code === 'ENOENT') return ': no such file or folder (ENOENT)';
  return ` (${code})`;
}

/**
 * At most MAX_PARAMETER_FILE_BYTES of the regular file `real`, as text without one trailing line end. The file opened
 * must have one link (a hard link made in the allowed folder to any other file is refused) and must not be, by its
 * device and inode, one of the files this tool never lets a parameter read.
 */
function readRegularFile(real: string, allowance: ParameterAllowance): Read {
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    return { problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { problem: 'is not a regular file; a sensitive value is read only from one' };
    if (isNeverReadableInode(stat, allowance)) return { problem: 'is, through a hard link, a file this tool never lets a parameter read' };
    if (stat.nlink > 1) return { problem: `has ${stat.nlink} links (a hard link); a sensitive value is read only from a file with one` };
    return valueWithin(fd, stat.size);
  } catch (error) {
    return { problem: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})` };
  } finally {
    closeSync(fd);
  }
}

/**
 * The value of the regular file open as `fd`, `size` bytes long when it was looked at, without one trailing line end
 * (`\n` or `\r\n`, as a file written by `echo` ends). It is read through a buffer one byte over the cap, so that a file
 * grown past the cap since its size was read is refused: nothing beyond the cap is ever read, nor sent.
 */
export function valueWithin(fd: number, size: number): Read {
  if (size > MAX_PARAMETER_FILE_BYTES) return { problem: `holds more than ${MAX_PARAMETER_FILE_BYTES} bytes` };
  const buffer = Buffer.alloc(MAX_PARAMETER_FILE_BYTES + 1);
  const length = fillFrom(fd, buffer);
  if (length > MAX_PARAMETER_FILE_BYTES) return { problem: `holds more than ${MAX_PARAMETER_FILE_BYTES} bytes` };
  return { value: buffer.subarray(0, length).toString('utf8').replace(/\r?\n$/, '') };
}
