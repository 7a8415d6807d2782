import { isInside } from '../path-inside.js';
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { SourceProblem } from '../errors.js';

/** Open flags: a FIFO or device never blocks the open, and the final path component is never a link (it was resolved). */
export const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Errors that say the process, not the repo, is short of something: they fail the pass instead of naming a file. */
const RESOURCE_ERRORS: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'ENOMEM']);

export type FileRead = { bytes: Buffer } | { problem: SourceProblem };

/**
 * Reads the regular file at `abs` (shown as `rel`) synchronously: synchronous reads of small files cost a tenth of the
 * promise-based ones, and hold one file descriptor at a time. Refuses, as a problem naming the file, a path that
 * resolves outside `realRoot`, anything but a regular file (without blocking on a FIFO), and more than `maxBytes`.
 * `knownReal` is the real path when the caller has just resolved it (the walk); it is then opened without a link.
 */
export function readSourceFile(realRoot: string, rel: string, abs: string, maxBytes: number, knownReal?: string): FileRead {
  return withSourceFile(realRoot, rel, abs, maxBytes, knownReal, (fd, size) => {
    // One byte more than allowed tells a file that grew since fstat.
    const bytes = Buffer.allocUnsafe(size + 1);
    const length = fillFrom(fd, bytes);
    if (length > maxBytes) return { problem: tooLarge(rel, length, maxBytes) };
    return { bytes: bytes.subarray(0, length) };
  });
}

/**
 * Reads the file as `readSourceFile` does, but through `buffer`, handing `onChunk` each part that fills it (and the
 * last, shorter one), valid only during the call: a file of any size costs no more memory than the buffer. Reads to
 * the end of the file, which may have grown since fstat, up to `maxBytes`.
 */
export function readSourceChunks(
  realRoot: string, rel: string, abs: string, maxBytes: number, knownReal: string | undefined,
  buffer: Buffer, onChunk: (chunk: Buffer) => void,
): { bytes: number } | { problem: SourceProblem } {
  return withSourceFile(realRoot, rel, abs, maxBytes, knownReal, (fd) => {
    for (let total = 0; ;) {
      const length = fillFrom(fd, buffer);
      total += length;
      if (total > maxBytes) return { problem: tooLarge(rel, total, maxBytes) };
      if (length > 0) onChunk(buffer.subarray(0, length));
      if (length < buffer.length) return { bytes: total };
    }
  });
}

/** Opens the file with the checks `readSourceFile` names and hands its descriptor and size to `read`. */
function withSourceFile<T extends object>(
  realRoot: string, rel: string, abs: string, maxBytes: number, knownReal: string | undefined,
  read: (fd: number, size: number) => T | { problem: SourceProblem },
): T | { problem: SourceProblem } {
  const opened = openSourceFile(realRoot, rel, abs, maxBytes, knownReal);
  if ('problem' in opened) return opened;
  try {
    return read(opened.fd, opened.size);
  } catch (error) {
    return { problem: unreadable(rel, error) };
  } finally {
    closeSync(opened.fd);
  }
}

/**
 * Opens the file with the checks `readSourceFile` names, for reads the caller makes (with `fillFrom`) and ends by
 * closing the descriptor.
 */
export function openSourceFile(
  realRoot: string, rel: string, abs: string, maxBytes: number, knownReal?: string,
): { fd: number; size: number } | { problem: SourceProblem } {
  let real: string;
  try {
    real = knownReal ?? realpathSync.native(abs);
  } catch (error) {
    return { problem: unreadable(rel, error) };
  }
  if (!isInside(realRoot, real)) return { problem: { file: rel, message: 'resolves outside the source root (through a symbolic link); move the target into the repo' } };
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (error) {
    return { problem: unreadable(rel, error) };
  }
  try {
    const stats = fstatSync(fd);
    const problem = fileProblem(rel, stats, maxBytes);
    if (problem === null) return { fd, size: stats.size };
    closeSync(fd);
    return { problem };
  } catch (error) {
    closeSync(fd);
    return { problem: unreadable(rel, error) };
  }
}

function fileProblem(rel: string, stats: Stats, maxBytes: number): SourceProblem | null {
  if (stats.isDirectory()) return { file: rel, message: 'is a folder; it must be a file' };
  if (!stats.isFile()) return { file: rel, message: 'is not a regular file (a FIFO, socket or device); it must be a plain file' };
  if (stats.size > maxBytes) return tooLarge(rel, stats.size, maxBytes);
  return null;
}

/** Reads from the file's position until `buffer` is full or the file ends; the bytes read. */
export function fillFrom(fd: number, buffer: Buffer): number {
  let length = 0;
  for (let read = -1; read !== 0 && length < buffer.length; length += read) read = readSync(fd, buffer, length, buffer.length - length, null);
  return length;
}

/** Decodes UTF-8 strictly, byte for byte (a byte order mark is kept). */
export function decodeText(rel: string, bytes: Uint8Array): { text: string } | { problem: SourceProblem } {
  try {
    return { text: utf8.decode(bytes) };
  } catch {
    return { problem: { file: rel, message: 'is not valid UTF-8 text' } };
  }
}

/** The problem for a file that cannot be read; a shortage of file descriptors or memory is thrown instead. */
export function unreadable(rel: string, error: unknown): SourceProblem {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined && RESOURCE_ERRORS.has(code)) throw error;
  return { file: rel, message: `cannot be read (${describeCode(code, error)})` };
}

function describeCode(code: string | undefined, error: unknown): string {
  if (code === 'ENAMETOOLONG') return 'ENAMETOOLONG: its path is longer than the system allows; shorten the folder names';
  if (code === 'ENOENT') return 'ENOENT: it disappeared while the repo was read, or is a symbolic link to a missing file';
  if (code === 'ELOOP') return 'ELOOP: a symbolic link loop';
  if (code === 'EISDIR') return 'EISDIR: it is a folder';
  return code ?? String(error);
}

function tooLarge(rel: string, size: number, maxBytes: number): SourceProblem {
  return { file: rel, message: `is ${size} bytes; it may be at most ${maxBytes} bytes` };
}

