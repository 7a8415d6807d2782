import { createHash } from 'node:crypto';
import { normalizeLineEnds } from './line-ends.js';

const BOM = '\uFEFF';

/**
 * The digest `codeDigest` (src/code-digest.ts) gives a text, computed chunk by chunk from its UTF-8 bytes, so the text
 * need not be held whole: decoded as UTF-8, a leading byte order mark dropped, line ends normalised (a CR at the end
 * of one chunk waits for the next).
 */
export interface CodeHasher {
  /** @throws TypeError when the decoder is fatal and the bytes are not UTF-8. */
  update(chunk: Uint8Array): void;
  /** The sha256 (hex); call once, after the last chunk. */
  digest(): string;
}

export interface CodeHasherOptions {
  /** Throw on bytes that are not UTF-8 instead of replacing them (as a body read as text does). @default false */
  fatal?: boolean;
  /** true: the decoder keeps a byte order mark (then dropped once, as codeDigest does). false: the decoder drops one
   * as a body read as text does, and one more is dropped as codeDigest does for that text. @default false */
  ignoreBOM?: boolean;
}

export function createCodeHasher(options: CodeHasherOptions = {}): CodeHasher {
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8', { fatal: options.fatal ?? false, ignoreBOM: options.ignoreBOM ?? false });
  let started = false;
  let pendingCr = false;
  const feed = (decoded: string, end: boolean) => {
    let text = pendingCr ? `\r${decoded}` : decoded;
    pendingCr = false;
    if (!started && text !== '') {
      started = true;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    if (!end && text.endsWith('\r')) {
      pendingCr = true;
      text = text.slice(0, -1);
    }
    if (text === '') return;
    hash.update(normalizeLineEnds(text), 'utf8');
  };
  return {
    update: (chunk) => feed(decoder.decode(chunk, { stream: true }), false),
    digest() {
      feed(decoder.decode(), true);
      return hash.digest('hex');
    },
  };
}
