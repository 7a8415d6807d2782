/** The shapes a transport exchanges: requests, responses, options and counters (see transport.ts). */
import type { FailedRequest } from '../errors.js';
import type { Logger } from '../logger.js';
import type { ProxySettings } from '../http/proxy.js';
import type { Clock } from './clock.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  /** Absolute URL. */
  url: string;
  json?: unknown;
  /** A binary body, sent as application/octet-stream: bytes, or a body read afresh for each try. */
  bytes?: Uint8Array | StreamedBody;
  /** false: never send the token (temporary download URLs). @default true */
  auth?: boolean;
  /**
   * How the request is named in messages and logs instead of its path and query: for a link that is itself a
   * credential (a policy set version's upload link). @default the path and query, redacted
   */
  shown?: string;
  /** 'unsent-only': a 5xx or a failure after sending is returned, not repeated (creates). @default 'always' */
  retry?: 'always' | 'unsent-only';
  /**
   * Reads a successful (2xx) body as it streams, instead of as text; what it resolves with is the response's
   * `consumed`, and `text` is empty. Called again for each try.
   */
  consume?: (body: AsyncIterable<Uint8Array>) => Promise<unknown>;
  /** The body is read up to this many bytes; a larger one is an ApiError naming the request. @default MAX_JSON_BODY_BYTES */
  maxBytes?: number;
  /** 'return': a redirect is the answer (the download follows its own). @default a GET follows redirects within the API's origin (api/redirects.ts) */
  redirects?: 'return';
  /** Set on a GET followed to a redirect's target in the API's origin: it carries the token like any API call. */
  redirected?: true;
}

/**
 * A body of `length` bytes sent as `chunks` yields them, called again for each try. What `chunks` throws calls the
 * request off before its body is complete, and is what the request rejects with, never retried.
 */
export interface StreamedBody {
  length: number;
  chunks(): AsyncIterable<Uint8Array>;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  request: FailedRequest;
  /** What `consume` made of a successful body. */
  consumed?: unknown;
  /** What to check, for an error message: set on a 404 when the base URL does not end in /api/v2. */
  hint?: string;
}

export interface TransportOptions {
  baseUrl: string;
  token: string;
  logger: Logger;
  rateLimit: 'auto' | number;
  concurrency: number;
  timeoutMs: number;
  /** The longest wait for a proxy to establish a tunnel (never more than `timeoutMs`). @default TUNNEL_DEADLINE_MS */
  tunnelDeadlineMs?: number;
  /** Tries after the first, at most, whatever the budget leaves (tests; Infinity in use). */
  maxRetries: number;
  /**
   * How long one request may keep trying: retrying 5xx and transport failures (from its first failure), and waiting on
   * 429s (from its first 429). Also how long the client goes on waiting while the API answers nothing but 429.
   */
  retryBudgetMs: number;
  clock: Clock;
  /** `User-Agent` of every request, temporary download URLs included. */
  userAgent: string;
  /** The proxy of every request, downloads included (http/proxy.ts). @default none */
  proxy?: ProxySettings;
  /** `error`: the failure's code (`ECONNREFUSED`, `timeout`, ...) when there was no answer. */
  onRequest?: (info: { method: string; status: number | 'error'; durationMs: number; error?: string }) => void;
  onRateLimitWait?: (seconds: number) => void;
  /** Called just before each request goes on the wire; what it throws fails the request, which is never retried. */
  fence?: () => void;
}

export interface TransportStats {
  requests: number;
  byStatus: Record<string, number>;
  retries: number;
  rateLimited: number;
  rateLimitWaitSeconds: number;
}

/** A create as `Transport.create` sends it: the request, how to read its answer, how to find what it made. */
export interface LostCreate<T> {
  request: HttpRequest;
  read: (response: HttpResponse) => T;
  /** Looks the resource up by its exact name; null when it does not exist, or is not this create's to take. */
  find: () => Promise<T | null>;
}
