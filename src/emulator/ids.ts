import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random alphanumeric string (16 characters unless told). */
export function randomSuffix(length = 16): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

export function newId(prefix: 'pol' | 'apool' | 'agent' | 'at' | 'polset' | 'polsetver' | 'var'): string {
  return `${prefix}-${randomSuffix()}`;
}
