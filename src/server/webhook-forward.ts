import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { embeddedIpv4, isLoopbackHost } from '../host-port.js';
import type { WebhookResponse } from './webhook.js';

/** Marks a delivery a standby handed over, so that a replica which stands by in turn never hands it on again. */
export const FORWARDED_HEADER = 'x-policy-pool-sync-forwarded-by';

/** How long a standby waits for the leader to take a handed-over delivery (GitHub gives up on a delivery after 10 s). */
export const FORWARD_TIMEOUT_MS = 5_000;

/** The most of the leader's answer read: its answers are a line of JSON. */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The headers of the webhook protocols, the only ones handed on (an allow-list): GitHub's and GitLab's event, delivery
 * and hook headers, and the body's type. Nothing else a delivery arrives with is: not the identity headers an ingress
 * or a proxy adds (`x-forwarded-*`, `x-auth-request-*`), not cookies or credentials, and never GitLab's token, which is
 * the secret itself (the standby signs the body instead, as GitHub does).
 */
export const FORWARDED_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'x-github-event', 'x-github-delivery', 'x-github-hook-id', 'x-github-hook-installation-target-id', 'x-github-hook-installation-target-type',
  'x-gitlab-event', 'x-gitlab-event-uuid', 'x-gitlab-webhook-uuid', 'x-gitlab-instance', 'idempotency-key',
]);

/**
 * Never a leader's address: link-local (the cloud metadata service, 169.254.169.254, among it), the unspecified ranges
 * and the other metadata addresses: Alibaba's (100.100.100.200), Oracle's (192.0.0.192), Azure's host (168.63.129.16)
 * and AWS's over IPv6 (fd00:ec2::254).
 */
const NEVER = new BlockList();
NEVER.addSubnet('169.254.0.0', 16, 'ipv4');
NEVER.addSubnet('0.0.0.0', 8, 'ipv4');
NEVER.addAddress('100.100.100.200', 'ipv4');
NEVER.addAddress('192.0.0.192', 'ipv4');
NEVER.addAddress('168.63.129.16', 'ipv4');
NEVER.addSubnet('fe80::', 10, 'ipv6');
NEVER.addAddress('fd00:ec2::254', 'ipv6');
NEVER.addAddress('::', 'ipv6');

/**
 * Why a standby will not hand a delivery to `address`, or null when it may: the address is read from the lease record,
 * which whoever can write the lease controls, so it must be an http(s) URL naming an IP literal (no name to resolve)
 * outside link-local and the metadata addresses, and outside loopback (`isLoopbackHost`) unless `allowLoopback`, in
 * every form: an IPv6 address carrying an IPv4 one (IPv4-mapped, IPv4-compatible, NAT64, 6to4) is judged as that too.
 */
export function forwardAddressProblem(address: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return 'it is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'it is not an http(s) URL';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(host);
  if (family === 0) return 'it names a host, not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const carried = family === 6 ? embeddedIpv4(host) : null;
  if (NEVER.check(host, type) || (carried !== null && NEVER.check(carried, 'ipv4'))) return 'it is a link-local, unspecified or metadata address';
  if (isLoopbackHost(host) && !allowLoopback) return 'it is a loopback address (leader-election.forward-to-loopback allows it)';
  return null;
}

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
  /** `leader-election.forward-to-loopback`. @default false */
  allowLoopback?: boolean;
  /** Waits `ms`, or until `signal` aborts (then resolves or rejects): the deadline's clock. @default timers/promises' setTimeout */
  sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
}

/** The leader's answer, or why there is none (the address refused, no connection, no answer in time). */
export type Forwarded = { answered: WebhookResponse } | { failed: string };

/** The protocol headers of a delivery (FORWARDED_HEADERS), each as one value. */
export function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !FORWARDED_HEADERS.has(name)) continue;
    kept[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}

/**
 * Hands a verified delivery to the leader, once: the same body and its protocol headers to its `/webhook`, signed as
 * GitHub signs (`X-Hub-Signature-256`, HMAC-SHA256 of the body with the shared secret), so that the leader verifies it
 * again and de-duplicates it by its delivery id. The leader's answer, whatever its status, or why there is none.
 */
export async function forwardDelivery(delivery: Delivery): Promise<Forwarded> {
  const refused = forwardAddressProblem(delivery.address, delivery.allowLoopback === true);
  if (refused !== null) return { failed: `the leader's address ${JSON.stringify(delivery.address.slice(0, 200))} is refused: ${refused}` };
  const headers = forwardedHeaders(delivery.headers);
  headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', delivery.secret).update(delivery.rawBody).digest('hex')}`;
  headers[FORWARDED_HEADER] = delivery.from;
  // One deadline for the whole exchange, the answer's body too: a leader that accepts and never answers, or answers
  // and never ends, costs the standby at most FORWARD_TIMEOUT_MS.
  const deadline = new AbortController();
  const ended = new AbortController();
  (delivery.sleep ?? ((ms, signal) => delay(ms, undefined, { signal })))(FORWARD_TIMEOUT_MS, ended.signal).then(
    () => deadline.abort(new Error(`no answer within ${FORWARD_TIMEOUT_MS / 1000} s`)),
    () => undefined,
  );
  try {
    const url = new URL('/webhook', delivery.address);
    const res = await fetch(url, { method: 'POST', headers, body: delivery.rawBody, redirect: 'error', signal: deadline.signal });
    const text = await readAtMost(res, MAX_ANSWER_BYTES);
    let body: Record<string, unknown> = {};
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // not JSON: the status says enough
    }
    return { answered: { status: res.status, body: { ...body, handedTo: delivery.leader } } };
  } catch (error) {
    const reason = deadline.signal.aborted ? deadline.signal.reason : error;
    return { failed: `the leader did not answer: ${reason instanceof Error ? reason.message : String(reason)}` };
  } finally {
    ended.abort();
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
