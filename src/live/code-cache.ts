import { createHash } from 'node:crypto';
import { normalizeLineEnds } from '../line-ends.js';

/** sha256 (hex) of the code with line ends normalised: equal digests mean the planner sees no code drift. */
export function codeDigest(code: string): string {
  return createHash('sha256').update(normalizeLineEnds(code), 'utf8').digest('hex');
}

/** Remembers, per policy id and `updated-at`, the hash of the code last seen, so unchanged code is not downloaded again. */
export interface CodeCache {
  get(policyId: string, updatedAt: string): string | undefined;
  set(policyId: string, updatedAt: string, hash: string): void;
}

export function createCodeCache(): CodeCache {
  const entries = new Map<string, string>();
  const key = (id: string, updatedAt: string) => `${id}@${updatedAt}`;
  return {
    get: (id, updatedAt) => entries.get(key(id, updatedAt)),
    set(id, updatedAt, hash) {
      for (const existing of entries.keys()) {
        if (existing.startsWith(`${id}@`)) entries.delete(existing);
      }
      entries.set(key(id, updatedAt), hash);
    },
  };
}
