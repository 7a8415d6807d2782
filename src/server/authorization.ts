import { constantTimeEqual } from './signature.js';

/** Whether an `Authorization` header is `Bearer <token>`, compared in constant time. The only form the control endpoints take. */
export function carriesBearer(authorization: string | undefined, token: string): boolean {
  const credentials = parse(authorization);
  return credentials?.scheme === 'bearer' && constantTimeEqual(credentials.value, token);
}

/**
 * Whether an `Authorization` header carries the status token: `Bearer <token>`, or `Basic` with the token as the
 * password (any user name), which is what a browser sends after its log-in prompt. A browser sends those Basic
 * credentials again on its own to every request to the daemon, so only read-only routes take them.
 */
export function carriesStatusToken(authorization: string | undefined, token: string): boolean {
  const credentials = parse(authorization);
  if (credentials === null) return false;
  if (credentials.scheme === 'bearer') return constantTimeEqual(credentials.value, token);
  if (credentials.scheme !== 'basic') return false;
  const decoded = Buffer.from(credentials.value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && constantTimeEqual(decoded.slice(colon + 1), token);
}

/** The challenges of a 401 from a status route: Basic first, so that a browser shows its log-in prompt. */
export const STATUS_CHALLENGES = ['Basic realm="policy-pool-sync status", charset="UTF-8"', 'Bearer realm="policy-pool-sync status"'];

function parse(authorization: string | undefined): { scheme: string; value: string } | null {
  if (authorization === undefined) return null;
  const match = /^(\S+)\s+(\S+)\s*$/.exec(authorization);
  return match === null ? null : { scheme: (match[1] ?? '').toLowerCase(), value: match[2] ?? '' };
}
