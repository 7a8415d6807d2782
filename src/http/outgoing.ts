/**
 * Outgoing HTTP outside the API: notifications and the pull-request comment. Through the proxy of the environment
 * (proxy.ts), retried by the one engine (retry.ts): 429, 5xx, timeouts and failed connections, honouring
 * `Retry-After`. Redirects are not followed, and no failure's text names the URL (a Slack URL is a secret).
 */
import { request, type Dispatcher } from 'undici';
import { errorMessage, OutgoingFailure } from '../errors.js';
import { NO_PROXY, outgoingDispatcher, proxyFor, proxyRefusal, proxyVariable, shownProxy, type ProxySettings } from './proxy.js';
import { retryableStatus, withRetries, type RetryClock, type RetryOptions, type RetryPolicy } from './retry.js';

export interface OutgoingRequest {
  method: 'GET' | 'POST' | 'PATCH';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * 'rate-limited-only': a write that must not happen twice (a comment's create) is tried again only after a 429,
   * which the server did not act on; 5xx and failed connections are returned as they are. @default 'always'
   */
  retry?: 'always' | 'rate-limited-only';
}

export interface OutgoingAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

export interface OutgoingOptions {
  /** @default no proxy */
  proxy?: ProxySettings;
  /** The back-off's time. @default the system's */
  clock?: RetryClock;
  /** The most an answer's body may hold; more is a failure. @default 32 MiB */
  maxBytes?: number;
}

const SYSTEM_CLOCK: RetryClock = {
  sleep: (ms, signal) => new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason as Error);
    const done = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', done);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', done, { once: true });
  }),
  random: () => Math.random(),
};

export class OutgoingHttp {
  private readonly dispatcher: Dispatcher;
  private readonly clock: RetryClock;
  private readonly maxBytes: number;
  private readonly proxy: ProxySettings;
  private closed: Promise<void> | null = null;

  constructor(options: OutgoingOptions = {}) {
    this.proxy = options.proxy ?? NO_PROXY;
    this.dispatcher = outgoingDispatcher(this.proxy);
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.maxBytes = options.maxBytes ?? 32 * 1024 * 1024;
  }

  /**
   * Sends `req` until an answer that is not worth another try, or `policy.attempts` tries: the last answer, whatever
   * its status, or an OutgoingFailure when the last try got none. `timeoutMs`: each try's.
   */
  send(req: OutgoingRequest, policy: RetryPolicy & { timeoutMs: number }, options: Omit<RetryOptions, 'wallNow'> = {}): Promise<OutgoingAnswer> {
    return withRetries<OutgoingAnswer>(async () => {
      try {
        const answer = await this.once(req, policy.timeoutMs, options.signal);
        const again = req.retry === 'rate-limited-only' ? answer.status === 429 : retryableStatus(answer.status);
        if (!again) return { done: answer };
        return { reason: `HTTP ${answer.status}`, status: answer.status, headers: answer.headers, giveUp: () => answer };
      } catch (error) {
        const failure = error instanceof OutgoingFailure ? error : new OutgoingFailure(errorMessage(error));
        if (options.signal?.aborted === true || req.retry === 'rate-limited-only' || failure.final) throw failure;
        return { reason: failure.message, giveUp: (): never => { throw failure; } };
      }
    }, policy, this.clock, options);
  }

  /** Closes the connections once the requests under way end; again, it waits for the same. */
  close(): Promise<void> {
    this.closed ??= this.dispatcher.close();
    return this.closed;
  }

  private async once(req: OutgoingRequest, timeoutMs: number, cancel: AbortSignal | undefined): Promise<OutgoingAnswer> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = cancel === undefined ? timeout : AbortSignal.any([timeout, cancel]);
    try {
      const res = await request(req.url, { method: req.method, headers: req.headers, body: req.body, dispatcher: this.dispatcher, signal });
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        size += (chunk as Buffer).byteLength;
        if (size > this.maxBytes) {
          res.body.destroy();
          throw new OutgoingFailure(`the answer is larger than ${this.maxBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
      return { status: res.statusCode, headers, text: Buffer.concat(chunks).toString('utf8') };
    } catch (error) {
      if (error instanceof OutgoingFailure) throw error;
      if (timeout.aborted && cancel?.aborted !== true) throw new OutgoingFailure(`no answer in ${timeoutMs / 1000} s`);
      if (cancel?.aborted === true) throw new OutgoingFailure('aborted: the queue is closing');
      throw this.proxyRefused(req.url, error) ?? new OutgoingFailure(connectionReason(error));
    }
  }

  /** The failure of a request the proxy refused (final), naming the variable and the proxy without its credentials; else null. */
  private proxyRefused(url: string, error: unknown): OutgoingFailure | null {
    const proxy = proxyFor(url, this.proxy);
    const refused = proxy === null ? null : proxyRefusal(error);
    if (proxy === null || refused === null) return null;
    const variable = proxyVariable(url, this.proxy);
    return new OutgoingFailure(`the proxy of ${variable} (${shownProxy(proxy)}) ${refused}; check ${variable} and NO_PROXY`, true);
  }
}

/** One line naming what failed, never the URL. */
function connectionReason(error: unknown): string {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return `connection failed (${code})`;
    current = current.cause;
  }
  return `connection failed (${errorMessage(error).split('\n')[0]?.slice(0, 80) ?? ''})`;
}
