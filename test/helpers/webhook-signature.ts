import { createHmac } from 'node:crypto';

/** What a GitHub sender puts in `X-Hub-Signature-256`: the hex HMAC-SHA256 of the raw body with the secret. */
export function githubSignature(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}
