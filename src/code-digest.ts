import { createHash } from 'node:crypto';
import { normalizeLineEnds } from './line-ends.js';

const BOM = '\uFEFF';

/**
 * sha256 (hex) of policy code as the planner compares it: a leading byte order mark dropped (downloads come
 * back decoded without one) and line ends normalised. Equal digests mean no code drift.
 */
export function codeDigest(code: string): string {
  const text = code.startsWith(BOM) ? code.slice(1) : code;
  return createHash('sha256').update(normalizeLineEnds(text), 'utf8').digest('hex');
}
