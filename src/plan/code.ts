import { createHash } from 'node:crypto';
import { normalizeLineEnds } from '../line-ends.js';

/** Whether live code equals the declared code; a line-end-only difference is not drift, null (never uploaded) always differs. */
export function sameCode(declared: string, live: string | null): boolean {
  return live !== null && normalizeLineEnds(declared) === normalizeLineEnds(live);
}

/** sha256 (hex) of the code with line ends normalised; equal digests mean `sameCode`. For code caches. */
export function codeDigest(code: string): string {
  return createHash('sha256').update(normalizeLineEnds(code), 'utf8').digest('hex');
}
