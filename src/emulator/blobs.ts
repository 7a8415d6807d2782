/** Temporary download URLs: a random key holds a snapshot of policy code for a few minutes. */
import { randomSuffix } from './ids.js';

export const BLOB_TTL_MS = 5 * 60 * 1000;

export interface BlobStore {
  /** Returns the key of a new temporary blob. */
  put(code: Buffer): string;
  get(key: string): Buffer | null;
}

export function createBlobStore(now: () => number): BlobStore {
  const blobs = new Map<string, { code: Buffer; expires: number }>();
  return {
    put(code) {
      for (const [key, blob] of blobs) if (blob.expires <= now()) blobs.delete(key);
      const key = randomSuffix(32);
      blobs.set(key, { code, expires: now() + BLOB_TTL_MS });
      return key;
    },
    get(key) {
      const blob = blobs.get(key);
      if (blob === undefined || blob.expires <= now()) return null;
      return blob.code;
    },
  };
}
