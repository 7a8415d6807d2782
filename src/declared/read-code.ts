import type { SourceProblem } from '../errors.js';
import { MAX_CODE_BYTES } from '../model.js';
import { createCodeScan } from '../code-content.js';
import { lfsPointerProblem, POINTER_HEAD_BYTES } from './lfs-pointer.js';
import { decodeText, readSourceChunks, readSourceFile } from './read-file.js';
import type { CodeSource } from './types.js';
import type { FoundFile } from './walk.js';

/** The largest settings or agent pool file read. */
export const MAX_YAML_BYTES = 1_048_576;

/** Policy code read, validated and hashed; its text is not kept. */
export interface CodeRead {
  source: CodeSource;
  codeDigest: string;
  codeLines: number;
  empty: boolean;
}

/** Code is read through one buffer of this size, reused: a file of any size costs no more memory than it. */
const CODE_CHUNK_BYTES = 1 << 20;
let codeBuffer: Buffer | null = null;

/**
 * Reads policy code after checking its size from the walk, so an oversized file is never loaded, and scans it as
 * it is read (UTF-8, digests, lines); the text is not kept. `buffer` is the one it is read through.
 */
export function readCodeFile(
  file: FoundFile, realRoot: string, buffer = sharedCodeBuffer(), observe?: (chunk: Buffer) => void,
): CodeRead | { problem: SourceProblem } {
  if (file.size > MAX_CODE_BYTES) {
    const message = `is ${file.size} bytes; policy code may be at most ${MAX_CODE_BYTES} bytes (10 MiB)`;
    return { problem: { file: file.rel, message } };
  }
  const scan = createCodeScan();
  let head: Buffer | null = null;
  const read = readSourceChunks(realRoot, file.rel, file.abs, MAX_CODE_BYTES, file.real, buffer, (chunk) => {
    head ??= Buffer.from(chunk.subarray(0, POINTER_HEAD_BYTES));
    scan.update(chunk);
    observe?.(chunk);
  });
  if ('problem' in read) return read;
  const pointer = head === null ? null : lfsPointerProblem(file.rel, head, read.bytes);
  if (pointer !== null) return { problem: pointer };
  const code = scan.finish();
  if (!code.utf8) return { problem: { file: file.rel, message: 'is not valid UTF-8 text' } };
  const source: CodeSource = { root: realRoot, path: file.abs, size: code.bytes, fileSha256: code.fileSha256 };
  return { source, codeDigest: code.codeDigest, codeLines: code.lines, empty: code.bytes === 0 };
}

/** Reading is synchronous, so one buffer serves every read. */
function sharedCodeBuffer(): Buffer {
  codeBuffer ??= Buffer.allocUnsafeSlow(CODE_CHUNK_BYTES);
  return codeBuffer;
}

/** Reads a settings or agent pool file as UTF-8 text. */
export function readYamlText(file: FoundFile, realRoot: string): { text: string } | { problem: SourceProblem } {
  const read = readSourceFile(realRoot, file.rel, file.abs, MAX_YAML_BYTES, file.real);
  if ('problem' in read) return read;
  const pointer = lfsPointerProblem(file.rel, read.bytes, read.bytes.length);
  return pointer === null ? decodeText(file.rel, read.bytes) : { problem: pointer };
}
