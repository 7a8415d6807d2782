import { createHash } from 'node:crypto';
import { closeSync } from 'node:fs';
import { CodeChangedError } from '../errors.js';
import { MAX_CODE_BYTES } from '../model.js';
import { fillFrom, openSourceFile, unreadable } from './read-file.js';
import type { CodeSource, DeclaredPolicy, DeclaredState } from './types.js';

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

/** Where a policy's code bytes are: its file (relative to the source root), and where and what those bytes were. */
export interface CodeAt {
  file: string;
  source: CodeSource;
}

/** Where a declared policy's code bytes are. */
export function codeAt(policy: DeclaredPolicy): CodeAt {
  return { file: policy.file, source: policy.codeSource };
}

/** The upload of the code at `code`: a large file costs a chunk or two per upload under way, never its size. */
export function codeBody(code: CodeAt, chunkBytes = UPLOAD_CHUNK_BYTES): CodeBody {
  const { source, file } = code;
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
        if (total !== source.size || hash.digest('hex') !== source.fileSha256) throw new CodeChangedError(file, null);
        if (held !== null) yield held;
      } finally {
        closeSync(opened.fd);
      }
    },
  };
}

/**
 * The code bytes of `policy` exactly as they were read and validated: its body (read again, never through a link
 * that leaves the source root, and checked against the digest of the bytes then), collected whole.
 * @throws CodeChangedError when they differ or cannot be read.
 */
export async function readVerifiedCode(policy: DeclaredPolicy): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of codeBody(codeAt(policy), Math.max(1, policy.codeSource.size)).chunks()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The declared state with the code text of the policies named in `names` loaded (checked against the digest, as for
 * the upload), so a plan can show it; every other policy keeps no text.
 */
export async function withCodeTexts(declared: DeclaredState, names: ReadonlySet<string>): Promise<DeclaredState> {
  const policies: DeclaredPolicy[] = [];
  for (const policy of declared.policies) {
    if (!names.has(policy.name) || policy.code !== null) {
      policies.push(policy);
      continue;
    }
    const bytes = await readVerifiedCode(policy);
    policies.push({ ...policy, code: bytes.toString('utf8') });
  }
  return { ...declared, policies };
}

function readChunk(file: string, fd: number, chunk: Buffer): number {
  try {
    return fillFrom(fd, chunk);
  } catch (error) {
    throw new CodeChangedError(file, unreadable(file, error).message);
  }
}
