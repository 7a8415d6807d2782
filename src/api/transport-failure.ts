/** Classifies and describes transport failures without carrying request headers along. */
import { scrub } from './scrub.js';

/** Codes of failures that happen before a single byte of the request left: safe to repeat anything. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

export interface TransportFailure {
  /** `ECONNRESET`, `UND_ERR_SOCKET`, `timeout`, ... */
  code: string;
  /** One line, with the token scrubbed. */
  description: string;
  /** false only when the request certainly never reached the server. */
  maybeSent: boolean;
}

/** `timeoutMs` is set when the request was aborted by its timeout. */
export function describeFailure(error: unknown, timeoutMs: number | null, secret: string): TransportFailure {
  const code = timeoutMs !== null ? 'timeout' : failureCode(error);
  const message = timeoutMs !== null ? `no response within ${timeoutMs} ms` : error instanceof Error ? error.message : String(error);
  return { code, description: scrub(`${code}: ${message}`, secret), maybeSent: !NOT_SENT.has(code) };
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
