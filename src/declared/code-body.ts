import { createHash } from 'node:crypto';
import { closeSync } from 'node:fs';
import { MAX_CODE_BYTES } from '../model.js';
import { CodeChangedError } from './read-code.js';
import { fillFrom, openSourceFile, unreadable } from './read-file.js';
import type { DeclaredPolicy } from './types.js';

/** The code of a policy as an upload sends it: read afresh, a chunk at a time, for each try. */
export interface CodeBody {
  /** Bytes; those that were read and validated. */
  length: number;
  /**
   * The bytes, read again from the file (never through a link that leaves the source root) and hashed as they are
   * read; the last chunk is held back until they prove to be those that were read and validated.
   * @throws CodeChangedError (before the last chunk) when they are not, or cannot be read.
   */
  chunks(): AsyncIterable<Uint8Array>;
}

const UPLOAD_CHUNK_BYTES = 256 * 1024;

/** The upload of `policy`'s code: a large file costs a chunk or two per upload under way, never its size. */
export function codeBody(policy: DeclaredPolicy, chunkBytes = UPLOAD_CHUNK_BYTES): CodeBody {
  const { codeSource: source, file } = policy;
  return {
    length: source.size,
    async *chunks() {
      const opened = openSourceFile(source.root, file, source.path, MAX_CODE_BYTES);
      if ('problem' in opened) throw new CodeChangedError(file, opened.problem.message.replace(/;.*$/, ''));
      try {
        const hash = createHash('sha256');
        let held: Buffer | null = null;
        let total = 0;
        for (;;) {
          // A fresh buffer each time (the one before may still be on its way out), one byte longer than what is left
          // to tell a file that grew.
          const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, source.size - total + 1));
          const length = readChunk(file, opened.fd, chunk);
          if (length === 0) break;
          total += length;
          hash.update(chunk.subarray(0, length));
          if (held !== null) yield held;
          held = chunk.subarray(0, length);
          if (length < chunk.length || total > source.size) break;
        }
        if (total !== source.size || hash.digest('hex') !== source.sha256) throw new CodeChangedError(file, null);
        if (held !== null) yield held;
      } finally {
        closeSync(opened.fd);
      }
    },
  };
}

function readChunk(file: string, fd: number, chunk: Buffer): number {
  try {
    return fillFrom(fd, chunk);
  } catch (error) {
    throw new CodeChangedError(file, unreadable(file, error).message);
  }
}
