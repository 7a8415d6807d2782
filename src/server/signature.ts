import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compares two secrets in constant time. Both sides are hashed to 32 bytes first, so `timingSafeEqual`
 * always sees equal-length buffers and the time taken says nothing about the length or prefix of either.
 */
export function constantTimeEqual(actual: string, expected: string): boolean {
  const a = createHash('sha256').update(actual, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the secret>`. */
export function verifyGithubSignature(secret: string, rawBody: Buffer, header: string | undefined): boolean {
  if (header === undefined) return false;
  const expected = `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
  return constantTimeEqual(header.trim().toLowerCase(), expected);
}

/** GitLab: `X-Gitlab-Token` carries the secret itself. */
export function verifyGitlabToken(secret: string, header: string | undefined): boolean {
  if (header === undefined) return false;
  return constantTimeEqual(header, secret);
}
