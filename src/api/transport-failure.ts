/** Classifies and describes transport failures without carrying request headers along. */
import { errorMessage } from '../errors.js';
import { proxyRefusal, TUNNEL_TIMEOUT_CODE } from '../http/proxy.js';
import type { Redact } from '../redact.js';

/** Codes of failures that happen before a single byte of the request left: safe to repeat anything. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', TUNNEL_TIMEOUT_CODE]);
/** Codes of requests refused before sending because of what they hold (a header, a URL): the same request fails again. */
const INVALID_REQUEST = new Set(['UND_ERR_INVALID_ARG', 'ERR_INVALID_ARG_TYPE', 'ERR_INVALID_ARG_VALUE', 'ERR_INVALID_URL', 'ERR_INVALID_CHAR', 'ERR_INVALID_HTTP_TOKEN']);
/** Codes of a client this process closed or destroyed itself (a pass that ended): trying again on it cannot help. */
const CLOSED_HERE = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

export interface TransportFailure {
  /** `ECONNRESET`, `UND_ERR_SOCKET`, `timeout`, ... */
  code: string;
  /** One line, redacted. */
  description: string;
  /** false only when the request certainly never reached the server. */
  maybeSent: boolean;
  /** false when trying again cannot help: the request itself is invalid. */
  retryable: boolean;
}

/** The proxy a request went through: the variable it was read from and its URL as it may be shown. */
export interface Via {
  variable: string;
  shown: string;
}

/**
 * `timeoutMs` is set when the request was aborted by its timeout; `via` when it went through a proxy, which a refusal
 * by the proxy names (final: the next try meets the same proxy), and any other failure mentions.
 */
export function describeFailure(error: unknown, timeoutMs: number | null, redact: Redact, via: Via | null = null): TransportFailure {
  const refused = via === null ? null : proxyRefusal(error);
  if (via !== null && refused !== null) {
    const description = `the proxy of ${via.variable} (${via.shown}) ${refused}; check ${via.variable} and NO_PROXY`;
    return { code: 'proxy-refused', description: redact(description), maybeSent: false, retryable: false };
  }
  const code = timeoutMs !== null ? 'timeout' : failureCode(error);
  const message = timeoutMs !== null ? `no response within ${timeoutMs} ms` : errorMessage(error);
  const invalid = INVALID_REQUEST.has(code);
  const retryable = !invalid && !CLOSED_HERE.has(code);
  const through = via === null ? '' : ` (through the proxy of ${via.variable}, ${via.shown})`;
  return { code, description: redact(`${code}: ${message}${through}`), maybeSent: !NOT_SENT.has(code) && !invalid, retryable };
}

/** A plain error to keep as `cause`: the code and message only, never the undici error with its request. */
export function safeCause(failure: TransportFailure): Error {
  return Object.assign(new Error(failure.description), { code: failure.code });
}

function failureCode(error: unknown): string {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return error instanceof Error ? error.name : 'Error';
}
