import { createHash } from 'node:crypto';
import type { SourceProblem } from '../errors.js';
import { MAX_CODE_BYTES } from '../model.js';
import { createCodeScan } from './code-scan.js';
import { decodeText, readSourceChunks, readSourceFile } from './read-file.js';
import type { CodeSource, DeclaredPolicy, DeclaredState } from './types.js';
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
export function readCodeFile(file: FoundFile, realRoot: string, buffer = sharedCodeBuffer()): CodeRead | { problem: SourceProblem } {
  if (file.size > MAX_CODE_BYTES) {
    const message = `is ${file.size} bytes; policy code may be at most ${MAX_CODE_BYTES} bytes (10 MiB)`;
    return { problem: { file: file.rel, message } };
  }
  const scan = createCodeScan();
  const read = readSourceChunks(realRoot, file.rel, file.abs, MAX_CODE_BYTES, file.real, buffer, (chunk) => scan.update(chunk));
  if ('problem' in read) return read;
  const code = scan.finish();
  if (!code.utf8) return { problem: { file: file.rel, message: 'is not valid UTF-8 text' } };
  const source: CodeSource = { root: realRoot, path: file.abs, size: code.bytes, sha256: code.sha256 };
  return { source, codeDigest: code.codeDigest, codeLines: code.lines, empty: code.bytes === 0 };
}

/** Reading is synchronous, so one buffer serves every read. */
function sharedCodeBuffer(): Buffer {
  codeBuffer ??= Buffer.allocUnsafeSlow(CODE_CHUNK_BYTES);
  return codeBuffer;
}

/** Lines as a plan counts them: CRLF, CR and LF each end one, and a last line without an ending counts too. */
export function lineCount(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let ends = 0;
  for (let at = 0; at < bytes.length; at += 1) {
    const byte = bytes[at];
    if (byte === 0x0a) ends += 1;
    else if (byte === 0x0d) {
      ends += 1;
      if (bytes[at + 1] === 0x0a) at += 1;
    }
  }
  const last = bytes[bytes.length - 1];
  return last === 0x0a || last === 0x0d ? ends : ends + 1;
}

/** Reads a settings or agent pool file as UTF-8 text. */
export function readYamlText(file: FoundFile, realRoot: string): { text: string } | { problem: SourceProblem } {
  const read = readSourceFile(realRoot, file.rel, file.abs, MAX_YAML_BYTES, file.real);
  return 'problem' in read ? read : decodeText(file.rel, read.bytes);
}

/** The policy's code file changed (or was swapped for a link) after it was read and validated. */
export class CodeChangedError extends Error {
  override name = 'CodeChangedError';
  constructor(readonly file: string, detail: string | null) {
    const why = detail === null ? '' : ` (it ${detail})`;
    super(`${file} changed since it was read and validated${why}; nothing was uploaded, the next pass reads it again`);
  }
}

/**
 * The code bytes of `policy` exactly as they were read and validated: read again (never through a link that leaves
 * the source root) and checked against the digest of the bytes then.
 * @throws CodeChangedError when they differ or cannot be read.
 */
export function readVerifiedCode(policy: DeclaredPolicy): Promise<Buffer> {
  const { codeSource: source, file } = policy;
  const read = readSourceFile(source.root, file, source.path, MAX_CODE_BYTES);
  if ('problem' in read) return Promise.reject(new CodeChangedError(file, read.problem.message.replace(/;.*$/, '')));
  if (read.bytes.length !== source.size || sha256(read.bytes) !== source.sha256) {
    return Promise.reject(new CodeChangedError(file, null));
  }
  return Promise.resolve(read.bytes);
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

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
