import { createHash } from 'node:crypto';
import { normalizeLineEnds } from '../line-ends.js';

const BOM = '\uFEFF';

/**
 * The digest `codeDigest` (src/code-digest.ts) gives the text of a body, computed chunk by chunk as the body streams,
 * so the text need not be held: decoded as UTF-8 like a body read as text, a leading byte order mark dropped, line
 * ends normalised (a CR at the end of one chunk waits for the next).
 */
export interface CodeHasher {
  update(chunk: Uint8Array): void;
  /** The sha256 (hex). */
  digest(): string;
}

export function createCodeHasher(): CodeHasher {
  const hash = createHash('sha256');
  const decoder = new TextDecoder('utf-8');
  let started = false;
  let pendingCr = false;
  const feed = (decoded: string, last: boolean) => {
    let text = pendingCr ? `\r${decoded}` : decoded;
    pendingCr = false;
    if (!started && text !== '') {
      started = true;
      if (text.startsWith(BOM)) text = text.slice(1);
    }
    if (!last && text.endsWith('\r')) {
      pendingCr = true;
      text = text.slice(0, -1);
    }
    if (text !== '') hash.update(normalizeLineEnds(text), 'utf8');
  };
  return {
    update: (chunk) => feed(decoder.decode(chunk, { stream: true }), false),
    digest() {
      feed(decoder.decode(), true);
      return hash.digest('hex');
    },
  };
}
