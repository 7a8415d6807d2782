import { UsageError } from '../errors.js';
import type { Logger } from '../logger.js';
import { constantTimeEqual } from './signature.js';

/** The environment variable holding the token that guards /status, the status page and /metrics. */
export const STATUS_TOKEN_ENV = 'STATUS_TOKEN';

/**
 * The status token from the environment, or null when unset (the status routes are then open, and the log says
 * so when the daemon listens beyond loopback). A token with spaces, control characters or non-ASCII characters
 * (a pasted line break, a typographic quote) is refused: no client could send it in a header.
 */
export function statusToken(env: NodeJS.ProcessEnv, listen: string, logger: Logger): string | null {
  const value = env[STATUS_TOKEN_ENV];
  if (value === undefined || value === '') {
    if (!loopback(listen)) {
      logger.warn({ listen }, `/status and /metrics are open to anyone who can reach ${listen}: set ${STATUS_TOKEN_ENV} to require a token`);
    }
    return null;
  }
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new UsageError(`${STATUS_TOKEN_ENV} holds a space, a line break, a control or a non-ASCII character: set it to printable ASCII only`);
  }
  logger.info(`/status, /status.html and /metrics require the token in ${STATUS_TOKEN_ENV}`);
  return value;
}

/**
 * Whether an `Authorization` header carries `token`: `Bearer <token>`, or `Basic` with the token as the password
 * (any user name), which is what a browser sends after its log-in prompt. Compared in constant time.
 */
export function carriesToken(authorization: string | undefined, token: string): boolean {
  if (authorization === undefined) return false;
  const match = /^(\S+)\s+(\S+)\s*$/.exec(authorization);
  if (match === null) return false;
  const scheme = (match[1] ?? '').toLowerCase();
  const credentials = match[2] ?? '';
  if (scheme === 'bearer') return constantTimeEqual(credentials, token);
  if (scheme !== 'basic') return false;
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && constantTimeEqual(decoded.slice(colon + 1), token);
}

/** The challenges of a 401: Basic first, so that a browser shows its log-in prompt. */
export const STATUS_CHALLENGES = ['Basic realm="policy-pool-sync status", charset="UTF-8"', 'Bearer realm="policy-pool-sync status"'];

function loopback(listen: string): boolean {
  const host = listen.slice(0, listen.lastIndexOf(':')).replace(/^\[(.*)\]$/, '$1');
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
