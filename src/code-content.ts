import { isUtf8 } from 'node:buffer';
import { createHash, type Hash } from 'node:crypto';

const LF = 0x0a;
const CR = 0x0d;
const LF_BYTE = Buffer.from([LF]);
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const NONE = Buffer.alloc(0);

/**
 * Policy code as content: the one normaliser every reader of code goes through, so that the declared file, the
 * downloaded copy and a text held in memory are compared alike. A leading byte order mark is dropped once (from the
 * bytes, never by a decoder), CRLF and lone CR count as LF; the scan also checks UTF-8, counts the bytes and the lines,
 * and digests the bytes as they are. Declared files (declared/read-code.ts) and downloads (api/download.ts) are scanned
 * as they stream; a string is scanned as its UTF-8 bytes (`scanText`).
 */

/** What a scan of policy code found. */
export interface ScannedCode {
  /** Whether the bytes are UTF-8; when not, the digests are of no use. */
  utf8: boolean;
  bytes: number;
  /** sha256 (hex) of the bytes as they are (the file's, not the digest the plan compares: see `codeDigest`). */
  fileSha256: string;
  /** As `codeDigest` gives it for the text: a leading byte order mark dropped, CRLF and lone CR as LF. */
  codeDigest: string;
  /** CRLF, CR and LF each end a line, and a last line without an ending counts too. */
  lines: number;
}

/** Policy code fed in chunks of any size, each used only during the call, so the code need not be held whole. */
export interface CodeScan {
  update(chunk: Uint8Array): void;
  /** Call once, after the last chunk. */
  finish(): ScannedCode;
}

/**
 * Scans code as bytes, without decoding it: UTF-8 is checked a whole character at a time (the bytes of one that a
 * chunk cuts wait for the next), and line ends are normalised as bytes, which in UTF-8 is the same as in the text.
 * Code without a carriage return or a leading byte order mark is its own normalised text and is hashed once.
 */
export function createCodeScan(): CodeScan {
  const raw = createHash('sha256');
  let normalised: Hash | null = null;
  /** The first bytes, until there are enough to tell a byte order mark; null once told. */
  let head: Buffer | null = NONE;
  /** The bytes of a character the last chunk cut. */
  let cut = NONE;
  let utf8 = true;
  let bytes = 0;
  let lines = 0;
  let last = -1;

  const checkUtf8 = (chunk: Buffer): boolean => {
    let from = 0;
    if (cut.length > 0) {
      from = Math.min(chunk.length, sequenceLength(cut[0] as number) - cut.length);
      cut = Buffer.concat([cut, chunk.subarray(0, from)]);
      if (cut.length < sequenceLength(cut[0] as number)) return true;
      if (!isUtf8(cut)) return false;
    }
    const end = cutCharacter(chunk, from);
    if (end === chunk.length && from === 0) return isUtf8(chunk);
    cut = end === chunk.length ? NONE : Buffer.from(chunk.subarray(end));
    return isUtf8(chunk.subarray(from, end));
  };
  const feed = (chunk: Buffer) => {
    if (utf8) utf8 = checkUtf8(chunk);
    if (normalised === null && chunk.includes(CR)) normalised = raw.copy();
    raw.update(chunk);
    bytes += chunk.length;
    lines += countLines(chunk, last === CR, normalised);
    last = chunk[chunk.length - 1] as number;
  };

  return {
    update(input) {
      if (input.length === 0) return;
      let chunk = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.length);
      if (head !== null) {
        if (head.length > 0) chunk = Buffer.concat([head, chunk]);
        if (chunk.length < BOM.length) {
          head = Buffer.from(chunk);
          return;
        }
        head = null;
        if (chunk[0] === BOM[0] && chunk[1] === BOM[1] && chunk[2] === BOM[2]) {
          // Dropped from the normalised text only; valid UTF-8 that ends no line.
          normalised = createHash('sha256');
          raw.update(BOM);
          bytes = BOM.length;
          last = BOM[BOM.length - 1] as number;
          chunk = chunk.subarray(BOM.length);
          if (chunk.length === 0) return;
        }
      }
      feed(chunk);
    },
    finish() {
      if (head !== null && head.length > 0) feed(head);
      if (cut.length > 0) utf8 = false;
      if (bytes > 0 && last !== LF && last !== CR) lines += 1;
      const fileSha256 = raw.digest('hex');
      return { utf8, bytes, fileSha256, codeDigest: normalised === null ? fileSha256 : normalised.digest('hex'), lines };
    },
  };
}

/**
 * Line ends in `chunk`, also fed (when `normalised` is not null) with CRLF and lone CR as LF. `afterCr`: the last
 * chunk ended with a CR, already counted and fed as LF, so an LF that starts this one ends no line of its own.
 */
function countLines(chunk: Buffer, afterCr: boolean, normalised: Hash | null): number {
  let ends = 0;
  for (let lf = chunk.indexOf(LF); lf !== -1; lf = chunk.indexOf(LF, lf + 1)) ends += 1;
  if (normalised === null) return ends;
  let from = 0;
  if (afterCr && chunk[0] === LF) {
    from = 1;
    ends -= 1;
  }
  for (let cr = chunk.indexOf(CR, from); cr !== -1; cr = chunk.indexOf(CR, from)) {
    normalised.update(chunk.subarray(from, cr));
    normalised.update(LF_BYTE);
    from = cr + 1;
    if (chunk[from] === LF) from += 1;
    else ends += 1;
  }
  normalised.update(chunk.subarray(from));
  return ends;
}

/** Where the last character starting at or after `from` begins when the chunk ends inside it, else the chunk's end. */
function cutCharacter(chunk: Buffer, from: number): number {
  for (let at = chunk.length - 1; at >= Math.max(from, chunk.length - 3); at -= 1) {
    const byte = chunk[at] as number;
    if ((byte & 0xc0) === 0x80) continue;
    return at + sequenceLength(byte) > chunk.length ? at : chunk.length;
  }
  return chunk.length;
}

/** Bytes in the UTF-8 sequence a byte starts (1 for a byte that starts none: the check then fails on it). */
function sequenceLength(lead: number): number {
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  return 1;
}

/** A text held in memory, scanned as its UTF-8 bytes. */
export function scanText(text: string): ScannedCode {
  const scan = createCodeScan();
  scan.update(Buffer.from(text, 'utf8'));
  return scan.finish();
}

/** sha256 (hex) of policy code as the planner compares it (see `createCodeScan`). Equal digests mean no code drift. */
export function codeDigest(code: string): string {
  return scanText(code).codeDigest;
}

/**
 * Code a plan describes without carrying it: the digest it is compared by, its size and lines. `sha256` is the
 * `codeDigest` (line ends normalised), under the name the JSON plan has always given it; the digest of a file's exact
 * bytes is `fileSha256` everywhere.
 */
export interface CodeSummary {
  sha256: string;
  bytes: number;
  lines: number;
}

/** Code as its summary, whether held as a text or already summarised; null when there is none. */
export function codeSummary(code: unknown): CodeSummary | null {
  if (isCodeSummary(code)) return { sha256: code.sha256, bytes: code.bytes, lines: code.lines };
  if (typeof code !== 'string') return null;
  const scanned = scanText(code);
  return { sha256: scanned.codeDigest, bytes: scanned.bytes, lines: scanned.lines };
}

function isCodeSummary(value: unknown): value is CodeSummary {
  return typeof value === 'object' && value !== null && typeof (value as { sha256?: unknown }).sha256 === 'string' &&
    typeof (value as { bytes?: unknown }).bytes === 'number' && typeof (value as { lines?: unknown }).lines === 'number';
}
