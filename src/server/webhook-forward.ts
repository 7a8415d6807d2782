import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { WebhookResponse } from './webhook.js';

/** Marks a delivery a standby handed over, so that a replica which stands by in turn never hands it on again. */
export const FORWARDED_HEADER = 'x-policy-pool-sync-forwarded-by';

/** How long a standby waits for the leader to take a handed-over delivery (GitHub gives up on a delivery after 10 s). */
export const FORWARD_TIMEOUT_MS = 5_000;

/** The most of the leader's answer read: its answers are a line of JSON. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** Headers never handed on: the connection's own, credentials, and GitLab's token (the secret itself). */
const DROPPED = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'authorization', 'cookie', 'x-gitlab-token', 'x-hub-signature-256', 'x-hub-signature']);

export interface Delivery {
  /** The leader's address from the lease record: `http://10.0.0.5:9090`. */
  address: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** The webhook secret, which signs the body again: GitLab's token is never sent on. */
  secret: string;
  /** This replica's identity, in FORWARDED_HEADER. */
  from: string;
  leader: string | null;
}

/**
 * Hands a verified delivery to the leader: the same body and headers to its `/webhook`, signed as GitHub signs
 * (`X-Hub-Signature-256`, HMAC-SHA256 of the body with the shared secret), so that the leader verifies it again and
 * de-duplicates it by its delivery id. The leader's answer, or null when it could not be reached in time.
 */
export async function forwardDelivery(delivery: Delivery): Promise<WebhookResponse | null> {
  let url: URL;
  try {
    url = new URL('/webhook', delivery.address);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(delivery.headers)) {
    if (value === undefined || DROPPED.has(name)) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', delivery.secret).update(delivery.rawBody).digest('hex')}`;
  headers[FORWARDED_HEADER] = delivery.from;
  try {
    const res = await fetch(url, { method: 'POST', headers, body: delivery.rawBody, redirect: 'error', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    const text = await readAtMost(res, MAX_ANSWER_BYTES);
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // not JSON: the status says enough
    }
    if (res.status === 503) return null;
    return { status: res.status, body: { ...body, handedTo: delivery.leader } };
  } catch {
    return null;
  }
}

/** The answer's text, read only up to `limit` bytes (the rest is dropped unread). */
async function readAtMost(res: Response, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body?.getReader();
  if (reader === undefined) return '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= limit) {
      await reader.cancel();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}
