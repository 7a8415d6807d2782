import PQueue from 'p-queue';
import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { tokenProblem } from '../config/token.js';
import { ApiError, BodyTooLargeError, NetworkError, UsageError, type FailedRequest } from '../errors.js';
import type { Logger } from '../logger.js';
import type { HttpMethod, HttpRequest, HttpResponse, LostCreate, TransportOptions, TransportStats } from './http-types.js';
import { Pacer, type Slot } from './pacer.js';
import { readRateLimitHeaders, type RateLimitHeaders } from './rate-limit-headers.js';
import { retryAfterMs, RetrySchedule } from '../http/retry.js';
import { rateLimitWaitMs } from './rate-limit-wait.js';
import { redirectTarget } from './redirects.js';
import { describeFailure, safeCause, type TransportFailure, type Via } from './transport-failure.js';
import { capped, MAX_JSON_BODY_BYTES, readCapped, tooLargeError } from './body-cap.js';
import { createRedactor, secretsInUrl, type Redact } from '../redact.js';
import { NO_PROXY, outgoingDispatcher, proxyFor, proxySecrets, proxyVariable, shownProxy, TUNNEL_DEADLINE_MS, TUNNEL_TIMEOUT_CODE, type ProxySettings } from '../http/proxy.js';
import { API_BACKOFF, flatHeaders, readableQuery, requestBody, seconds, watched, withNote } from './request-parts.js';
import { count } from '../plural.js';

export type { HttpMethod, HttpRequest, HttpResponse, LostCreate, StreamedBody, TransportOptions, TransportStats } from './http-types.js';

/** `waitMs`: for a 429, how long the pacer now holds every start. */
type Outcome = { response: HttpResponse; waitMs?: number } | { failure: TransportFailure };

const JSON_API = 'application/vnd.api+json';
/** Methods that carry the JSON:API media type, with or without a body: the service answers 415 otherwise. */
const MUTATING = new Set<HttpMethod>(['POST', 'PATCH', 'DELETE']);
/** How long closing waits for the requests under way before it drops their connections. */
const CLOSE_GRACE_MS = 5_000;
/** Tries in a row whose tunnel a proxy did not establish, after which the proxy is taken for silent: about 30 s in all. */
const TUNNEL_TRIES = 3;
/** The shortest time a try is given when the retry budget has less left. */
const MIN_TRY_MS = 1_000;
/** What an HTTP header value may hold. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;

/**
 * The two run lists (`GET /workspaces/:id/runs`, `GET /organizations/:org/runs`) have their own limit, 30 requests a
 * minute (`run.mdx`), announced in their answers' `x-ratelimit-limit` (`index.mdx`, "Lower rate limits for some
 * endpoints"): a count per minute there, per second everywhere else.
 */
const RUN_LIST = /^\/(workspaces|organizations)\/[^/]+\/runs\/?$/;
const MINUTE_MS = 60_000;

/**
 * Every HTTP exchange of one client: one keep-alive agent, one queue bounding concurrency, one pacer
 * holding starts to the rate limit, retries of 429, 5xx and transport failures. The run lists are paced apart as well,
 * on a pacer of their own per minute, waited for before a request takes its place in the queue: a list waiting for
 * its minute never holds a place another request could use, so policy and set requests keep their own pacing.
 */
export class Transport {
  private readonly agent: Dispatcher;
  private readonly queue: PQueue;
  private readonly pacer: Pacer;
  /** The run lists' own pacer (RUN_LIST), per minute. */
  private readonly listPacer: Pacer;
  private readonly base: URL;
  private readonly counters: TransportStats = { requests: 0, byStatus: {}, retries: 0, rateLimited: 0, rateLimitWaitSeconds: 0 };
  /** Requests waiting for their start slot now, and since when at least one has been: waits count in wall-clock time. */
  private waiting = 0;
  private waitingSince = 0;
  /** Per pass signal: whether its requests could use the API (see `reached`). */
  private readonly reach = new WeakMap<AbortSignal, boolean>();
  /** A signal derived from a pass's (see `reachAs`), and the pass's signal its requests count for. */
  private readonly reachKeys = new WeakMap<AbortSignal, AbortSignal>();
  /** Since when every answer of the API has been a 429; null once one was not. */
  private onlyRateLimitedSince: number | null = null;
  /** Text from outside (a path, an answer that is not a success, a failure) loses the token and credentials here. */
  private readonly redact: Redact;
  private readonly proxy: ProxySettings;

  constructor(private readonly options: TransportOptions) {
    // A header undici refuses fails every request, and each refusal keeps one pooled connection for good.
    const problem = tokenProblem(options.token);
    if (problem !== null) throw new UsageError(`the API token ${problem} (the token is not shown)`);
    if (!HEADER_VALUE.test(options.userAgent)) throw new UsageError('the User-Agent must be printable ASCII');
    this.base = new URL(options.baseUrl.replace(/\/+$/, ''));
    const proxy = options.proxy ?? NO_PROXY;
    this.proxy = proxy;
    // Learned sensitive values too: an answer may echo a parameter's value that was sent.
    this.redact = createRedactor([options.token, ...secretsInUrl(options.baseUrl), ...proxySecrets(proxy)], { learned: true });
    this.agent = outgoingDispatcher(proxy, {
      connections: options.concurrency + 2,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // A proxy that takes the connection and never answers CONNECT fails the try within the tunnel's deadline.
      tunnelTimeoutMs: Math.min(options.timeoutMs, options.tunnelDeadlineMs ?? TUNNEL_DEADLINE_MS),
    });
    this.queue = new PQueue({ concurrency: options.concurrency });
    this.pacer = new Pacer(options.clock, options.rateLimit);
    this.listPacer = new Pacer(options.clock, 'auto', { windowMs: MINUTE_MS, burst: true });
  }

  /** Absolute URL of a path relative to the base URL (`/policies/pol-1`). */
  url(path: string): string {
    return `${this.base.href}${path}`;
  }

  get logger(): Logger {
    return this.options.logger;
  }

  stats(): TransportStats {
    return { ...this.counters, byStatus: { ...this.counters.byStatus } };
  }

  /**
   * Waits for the requests under way, then closes the connections; after `graceMs` whatever is left (a request held
   * by a proxy or a server that never answers) is destroyed, so that closing always ends.
   */
  async close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const over = new Promise<'over'>((resolve) => (timer = setTimeout(resolve, graceMs, 'over')));
    try {
      const closed = (async () => {
        await this.queue.onIdle();
        await this.agent.close();
      })();
      closed.catch(() => undefined);
      if ((await Promise.race([closed, over])) === 'over') {
        this.options.logger.warn({ graceSeconds: graceMs / 1000 }, 'api requests still under way when closing; dropping their connections');
        this.queue.clear();
        await this.agent.destroy();
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends until an answer worth returning: any status but 429, and 5xx only once retries are spent. Once `signal`
   * aborts, the request leaves the queue, the pacer, its back-off or the wire at once and rejects with the signal's reason.
   */
  async send(req: HttpRequest, signal?: AbortSignal): Promise<HttpResponse> {
    try {
      const response = await this.sendUntilAnswered(req, signal);
      if (signal !== undefined) this.noteReach(signal, !(response.status >= 500 || response.status === 401 || response.status === 403));
      return response;
    } catch (error) {
      if (signal !== undefined && error instanceof NetworkError) this.noteReach(signal, false);
      throw error;
    }
  }

  /**
   * Whether the requests sent with `signal` (one pass's) could use the API: false once one could not (no answer or a
   * 5xx after retries, or a refused token), true once one got another answer, null before any.
   */
  reached(signal: AbortSignal): boolean | null {
    return this.reach.get(signal) ?? null;
  }

  /**
   * Counts the requests sent with `derived` (a signal that also ends part of a pass early) as requests of `key`'s,
   * so that `reached(key)` still tells whether the pass could use the API.
   */
  reachAs(derived: AbortSignal, key: AbortSignal): void {
    this.reachKeys.set(derived, this.reachKeys.get(key) ?? key);
  }

  private noteReach(sentWith: AbortSignal, reached: boolean): void {
    const signal = this.reachKeys.get(sentWith) ?? sentWith;
    if (!reached) this.reach.set(signal, false);
    else if (!this.reach.has(signal)) this.reach.set(signal, true);
  }

  private async sendUntilAnswered(first: HttpRequest, signal?: AbortSignal): Promise<HttpResponse> {
    const { logger, clock } = this.options;
    let req = first;
    let described = this.describe(req);
    let hops = 0;
    let limited = 0;
    let limitedSince: number | null = null;
    // 5xx and transport failures: the one engine's schedule, within the retry budget.
    const failing = this.retrySchedule();
    let tunnelsRefused = 0;
    for (;;) {
      signal?.throwIfAborted();
      const listSlot = this.isRunList(req) ? await this.waitForSlot(this.listPacer, signal) : null;
      const outcome = await this.queue.add(() => this.attempt(req, described, signal, failing.budgetLeftMs, listSlot), { priority: failing.failures + limited, signal });
      if ('response' in outcome) {
        const { status, headers } = outcome.response;
        if (status === 429) {
          limitedSince ??= clock.now();
          const gaveUp = this.rateLimitSpent(limited, limitedSince);
          if (gaveUp !== null) return { ...outcome.response, hint: gaveUp };
          limited += 1;
          this.counters.rateLimited += 1;
          // Outside the API (a temporary download URL) there is no pacer to hold starts: wait here.
          const waitMs = outcome.waitMs ?? rateLimitWaitMs(limitHeaders(headers).resetSeconds, limited + 1, clock.random());
          logger.warn({ ...described, status, waitMs: Math.round(waitMs), attempt: limited }, 'api rate limited, waiting');
          if (outcome.waitMs === undefined) await clock.sleep(waitMs, signal);
          continue;
        }
        const retryable = status >= 500 && req.retry !== 'unsent-only';
        const redirect = retryable ? null : redirectTarget(req, outcome.response, this.base, hops);
        if (redirect !== null) {
          logger.info({ ...described, status, hop: (hops += 1) }, 'api request redirected within the API, following');
          req = { ...req, url: redirect, redirected: true };
          described = this.describe(req);
          continue;
        }
        if (!retryable) return this.withHint(outcome.response);
        const asked = status === 503 ? retryAfterSeconds(headers) : null;
        const delayMs = failing.failure(asked === null ? null : asked * 1000);
        if (delayMs === null) return { ...outcome.response, hint: this.retriesSpent(failing) };
        await this.backOff(described, failing.failures, { status }, signal, delayMs);
        continue;
      }
      const { failure } = outcome;
      // A proxy that established no tunnel in TUNNEL_TRIES tries in a row is silent: the next try would meet it again.
      tunnelsRefused = failure.code === TUNNEL_TIMEOUT_CODE ? tunnelsRefused + 1 : 0;
      const silentProxy = tunnelsRefused >= TUNNEL_TRIES;
      const retryable = failure.retryable && !silentProxy && (req.retry !== 'unsent-only' || !failure.maybeSent);
      const delayMs = retryable ? failing.failure() : null;
      if (delayMs === null) {
        const spent = silentProxy ? `; no tunnel in ${TUNNEL_TRIES} tries in a row, so no more: check ${this.via(new URL(req.url))?.variable ?? 'HTTPS_PROXY'} and NO_PROXY` : retryable ? `; ${this.retriesSpent(failing)}` : '';
        const message = `${described.method} ${described.path} failed: ${failure.description}${spent}`;
        throw new NetworkError(message, described, { cause: safeCause(failure) });
      }
      await this.backOff(described, failing.failures, { error: failure.code }, signal, delayMs);
    }
  }

  /**
   * A create, which is not idempotent: when its answer is lost (a 5xx, or the connection failed after the request
   * went out) the write may still have happened. The resource is looked for first (`find`) and returned if it is
   * there; only otherwise is the create sent again, within the same retry budget as any request.
   */
  async create<T>(create: LostCreate<T>, signal?: AbortSignal): Promise<T> {
    const failing = this.retrySchedule();
    for (;;) {
      let lost: ApiError | NetworkError;
      try {
        return create.read(await this.send({ ...create.request, retry: 'unsent-only' }, signal));
      } catch (error) {
        const unanswered = error instanceof NetworkError || (error instanceof ApiError && error.status >= 500);
        if (!unanswered) throw error;
        lost = error;
      }
      const existing = await create.find();
      if (existing !== null) {
        this.options.logger.warn({ ...lost.request, attempt: failing.failures + 1 }, 'api create answer was lost but the resource exists; using it');
        return existing;
      }
      const delayMs = failing.failure();
      if (delayMs === null) throw withNote(lost, this.retriesSpent(failing));
      await this.backOff(lost.request, failing.failures, { error: lost.message }, signal, delayMs);
    }
  }

  /**
   * The waits of one request failing with 5xx or without an answer (the engine of http/retry.ts): the API's back-off,
   * `api.retry-budget` from the first failure, and at most maxRetries tries after the first.
   */
  private retrySchedule(): RetrySchedule {
    const { clock, maxRetries, retryBudgetMs } = this.options;
    return new RetrySchedule({ ...API_BACKOFF, attempts: maxRetries + 1, budgetMs: retryBudgetMs }, () => clock.random(), () => clock.now());
  }

  /** What an error adds when retries stopped: how many tries, over how long. */
  private retriesSpent(failing: RetrySchedule): string {
    return `gave up after ${count(failing.failures, 'try', 'tries')} over ${seconds(failing.failingForMs)} (api.retry-budget: ${seconds(this.options.retryBudgetMs)})`;
  }

  /** Why a request answered 429 should wait no more, or null: the budget is spent, or the API answers nothing but 429. */
  private rateLimitSpent(limited: number, limitedSince: number): string | null {
    const { clock, retryBudgetMs } = this.options;
    const now = clock.now();
    const budget = `(api.retry-budget: ${seconds(retryBudgetMs)})`;
    if (now - limitedSince >= retryBudgetMs) return `still rate limited after waiting ${seconds(now - limitedSince)} ${budget}`;
    const only = this.onlyRateLimitedSince;
    if (only !== null && now - only >= retryBudgetMs) return `the API has answered nothing but 429 for ${seconds(now - only)} ${budget}`;
    return null;
  }

  /** Waits `delayMs` before the next try of a request that failed `attempt` times; counted as a retry. */
  private async backOff(request: FailedRequest, attempt: number, reason: Record<string, unknown>, signal: AbortSignal | undefined, delayMs: number): Promise<void> {
    this.counters.retries += 1;
    // A request's first retry is a warning naming the API's host; its next ones, while it keeps failing, are debug.
    const line = { api: this.base.host, ...request, ...reason, attempt, delayMs: Math.round(delayMs) };
    if (attempt === 1) this.options.logger.warn(line, 'api request failed, retrying');
    else this.options.logger.debug(line, 'api request failed again, retrying');
    await this.options.clock.sleep(delayMs, signal);
  }

  /** A 404 from an API whose URL lacks /api/v2 most likely means the URL is wrong, not the resource: say so. */
  private withHint(response: HttpResponse): HttpResponse {
    if (response.status !== 404 || /\/api\/v2$/.test(this.base.pathname)) return response;
    const example = `${this.base.origin}/api/v2`;
    return { ...response, hint: `the API URL ${this.base.href.replace(/\/+$/, '')} does not end in /api/v2, where the API's endpoints live (e.g. ${example}): check --api-url, API_BASE_URL or api.url` };
  }

  private describe(req: HttpRequest): FailedRequest {
    if (req.shown !== undefined) return { method: req.method, path: req.shown };
    const url = new URL(req.url);
    const path = this.inApi(url) ? url.pathname.slice(this.base.pathname.length) : url.pathname;
    // The one place a request's URL becomes text: a URL the server named (a link, a redirect) may echo the token.
    return { method: req.method, path: this.redact(`${path}${readableQuery(url.search)}`) };
  }

  /**
   * One try; `budgetLeftMs`: what is left of the retry budget, which bounds the try's time as well (at least a second).
   * `listSlot`: a run list's slot of its own pacer, which then learns from the answer's rate-limit headers (theirs are
   * the list's limit, per minute), while the request still takes a slot of every endpoint's.
   */
  private async attempt(req: HttpRequest, described: FailedRequest, cancel: AbortSignal | undefined, budgetLeftMs: number, listSlot: Slot | null = null): Promise<Outcome> {
    const { clock, logger } = this.options;
    const timeoutMs = Math.min(this.options.timeoutMs, Math.max(MIN_TRY_MS, Math.ceil(budgetLeftMs)));
    const url = new URL(req.url);
    const inApi = this.inApi(url);
    const slot = inApi ? await this.waitForSlot(this.pacer, cancel) : null;
    // Last check before the wire (leader election): throws when this replica may no longer send.
    this.options.fence?.();
    const started = clock.now();
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = cancel === undefined ? timeout : AbortSignal.any([timeout, cancel]);
    let body: Readable | undefined;
    let status = 0;
    const streamed = req.bytes !== undefined && 'chunks' in req.bytes ? watched(req.bytes) : null;
    try {
      const res = await request(url, {
        method: req.method,
        headers: this.headers(req, inApi),
        body: streamed?.stream ?? requestBody(req),
        dispatcher: this.agent,
        signal,
      });
      body = res.body;
      status = res.statusCode;
      const consume = req.consume !== undefined && res.statusCode >= 200 && res.statusCode < 300 ? req.consume : undefined;
      const limit = req.maxBytes ?? MAX_JSON_BODY_BYTES;
      const length = flatHeaders(res.headers)['content-length'];
      const consumed = consume === undefined ? undefined : await consume(capped(res.body, limit, length));
      const text = consume === undefined ? await readCapped(res.body, limit, length) : '';
      if (streamed?.failed !== undefined) throw streamed.failed.error;
      const headers = flatHeaders(res.headers);
      const durationMs = clock.now() - started;
      this.record(req.method, res.statusCode, durationMs);
      logger.debug({ ...described, status: res.statusCode, durationMs: Math.round(durationMs) }, 'api request');
      // An answer that is not a success becomes error messages: the token it may echo is redacted here, once.
      const said = res.statusCode >= 200 && res.statusCode < 300 ? text : this.redact(text);
      const response = { status: res.statusCode, headers, text: said, request: described, ...(consume === undefined ? {} : { consumed }) };
      // A gateway's 5xx says nothing about the API's limit.
      if (slot === null || res.statusCode >= 500) return { response };
      this.onlyRateLimitedSince = res.statusCode === 429 ? (this.onlyRateLimitedSince ?? clock.now()) : null;
      const pacer = listSlot === null ? this.pacer : this.listPacer;
      const startedAt = listSlot?.startedAt ?? slot.startedAt;
      if (res.statusCode === 429) return { response, waitMs: pacer.rateLimited(limitHeaders(headers), startedAt) };
      pacer.observe(readRateLimitHeaders(headers), startedAt);
      return { response };
    } catch (error) {
      // Called off by the caller or by the body: not a failure of the API, never retried.
      if (cancel?.aborted === true) throw cancel.reason;
      if (streamed?.failed !== undefined) throw streamed.failed.error;
      // The same answer would come again: an oversized body is never retried.
      if (error instanceof BodyTooLargeError) throw tooLargeError(error, status, described);
      const failure = describeFailure(error, timeout.aborted ? timeoutMs : null, this.redact, this.via(url));
      const durationMs = clock.now() - started;
      this.record(req.method, 'error', durationMs, failure.code);
      logger.debug({ ...described, error: failure.code, durationMs: Math.round(durationMs) }, 'api request got no response');
      return { failure };
    } finally {
      // A body left unread holds its connection: whatever happened, it goes back to the pool or is closed.
      if (body !== undefined && !body.destroyed) body.on('error', () => undefined).destroy();
      // A request body the server did not wait for lets go of what it reads from.
      if (streamed !== null && !streamed.stream.destroyed) streamed.stream.on('error', () => undefined).destroy();
    }
  }

  /** The proxy a request to `url` goes through, as a failure names it; null when it goes straight to its origin. */
  private via(url: URL): Via | null {
    const proxy = proxyFor(url, this.proxy);
    return proxy === null ? null : { variable: proxyVariable(url, this.proxy), shown: shownProxy(proxy) };
  }

  /** A GET of one of the run lists under the base URL, paced on their own pacer too. */
  private isRunList(req: HttpRequest): boolean {
    if (req.method !== 'GET') return false;
    const url = new URL(req.url);
    return this.inApi(url) && RUN_LIST.test(url.pathname.slice(this.base.pathname.replace(/\/+$/, '').length));
  }

  /** Requests under the base URL are paced and may carry the token; nothing else is or does. */
  private inApi(url: URL): boolean {
    return url.origin === this.base.origin && url.pathname.startsWith(`${this.base.pathname}/`);
  }

  private headers(req: HttpRequest, inApi: boolean): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.options.userAgent };
    // The upload does not follow JSON:API's header conventions (SPEC.md): it asks for JSON, as the vendor's client does.
    if (inApi) headers.accept = req.bytes === undefined ? JSON_API : 'application/json';
    if ((inApi || req.redirected === true) && req.auth !== false) headers.authorization = `Bearer ${this.options.token}`;
    if (MUTATING.has(req.method) || req.json !== undefined) headers['content-type'] = JSON_API;
    if (req.bytes !== undefined) headers['content-type'] = 'application/octet-stream';
    if (req.bytes !== undefined && 'chunks' in req.bytes) headers['content-length'] = String(req.bytes.length);
    return headers;
  }

  private record(method: string, status: number | 'error', durationMs: number, error?: string): void {
    this.counters.requests += 1;
    const key = String(status);
    this.counters.byStatus[key] = (this.counters.byStatus[key] ?? 0) + 1;
    this.options.onRequest?.({ method, status, durationMs, ...(error === undefined ? {} : { error }) });
  }

  /**
   * Waits for the pacer. The time counted is the union of the waits: while several requests wait at once, the
   * clock runs once, not once per request, so the figure never exceeds the duration of the run.
   */
  private async waitForSlot(pacer: Pacer, signal?: AbortSignal): Promise<Slot> {
    if (this.waiting === 0) this.waitingSince = this.options.clock.now();
    this.waiting += 1;
    try {
      return await pacer.acquire(signal);
    } finally {
      this.waiting -= 1;
      if (this.waiting === 0) this.recordWait(this.options.clock.now() - this.waitingSince);
    }
  }

  private recordWait(waitedMs: number): void {
    if (waitedMs <= 0) return;
    this.counters.rateLimitWaitSeconds += waitedMs / 1000;
    this.options.onRateLimitWait?.(waitedMs / 1000);
  }
}

/**
 * The rate-limit headers of a 429: a gateway in front of the API may send `Retry-After` (seconds or an HTTP date)
 * instead of `x-ratelimit-reset`, which wins when both are there.
 */
function limitHeaders(headers: Record<string, string>): RateLimitHeaders {
  const read = readRateLimitHeaders(headers);
  return read.resetSeconds !== null ? read : { ...read, resetSeconds: retryAfterSeconds(headers) };
}

/** A 503's wait: its `Retry-After` when it has one and no `x-ratelimit-reset` (which speaks of the rate window, not the outage). */
function retryAfterSeconds(headers: Record<string, string>): number | null {
  if (headers['x-ratelimit-reset'] !== undefined) return null;
  // An HTTP date counts from the answer's Date header; the wall clock only when it has none.
  const after = retryAfterMs(headers, Date.now());
  return after === null ? null : after / 1000;
}
