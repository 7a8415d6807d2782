/** Temporary download URLs: a random key holds a snapshot of policy code for a few minutes. */
import { randomSuffix } from './ids.js';

export const BLOB_TTL_MS = 5 * 60 * 1000;

export interface BlobStore {
  /** Returns the key of a new temporary blob. */
  put(code: Buffer): string;
  get(key: string): Buffer | null;
}

/**
 * Every blob lives equally long, so a Map (which keeps insertion order) holds them oldest first:
 * expiry drops from the front until it meets a live one, never scanning the rest.
 */
export function createBlobStore(now: () => number): BlobStore {
  const blobs = new Map<string, { code: Buffer; expires: number }>();
  const dropExpired = (at: number): void => {
    for (const [key, blob] of blobs) {
      if (blob.expires > at) return;
      blobs.delete(key);
    }
  };
  return {
    put(code) {
      const at = now();
      dropExpired(at);
      const key = randomSuffix(32);
      blobs.set(key, { code, expires: at + BLOB_TTL_MS });
      return key;
    },
    get(key) {
      const blob = blobs.get(key);
      if (blob === undefined || blob.expires <= now()) return null;
      return blob.code;
    },
  };
}
