import type { Logger } from '../logger.js';
import { errorMessage } from '../errors.js';

/** One HTTP request a receiver sends. */
export interface Outgoing {
  /** What the metrics and logs call it: the event, or `pending`/`success`/`failure` for a commit status. */
  event: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

export type DeliveryResult = 'sent' | 'failed' | 'dropped';

export interface DeliveryOptions {
  /** The receiver's name (logs and metrics; never its URL, which may hold a secret). */
  receiver: string;
  logger: Logger;
  onResult?(receiver: string, event: string, result: DeliveryResult): void;
  /** @default DELIVERY_DEFAULTS */
  limits?: Partial<DeliveryLimits>;
}

export interface DeliveryLimits {
  /** Messages waiting per receiver; past it the oldest is dropped. */
  queueLength: number;
  /** Attempts per message (5xx, timeouts and dropped connections are retried; 4xx are not). */
  attempts: number;
  /** Time one attempt may take. */
  timeoutMs: number;
  /** Wait before the first retry, doubled at each retry. */
  backoffMs: number;
}

export const DELIVERY_DEFAULTS: DeliveryLimits = { queueLength: 100, attempts: 5, timeoutMs: 10_000, backoffMs: 1_000 };

/** A receiver's queue: messages are sent one at a time, in order, in the background; a pass never waits for them. */
export interface DeliveryQueue {
  push(message: Outgoing): void;
  /** Resolves when the queue is empty, or after `timeoutMs`; what is left is dropped. */
  drain(timeoutMs: number): Promise<void>;
}

export function createDeliveryQueue(options: DeliveryOptions): DeliveryQueue {
  const limits = { ...DELIVERY_DEFAULTS, ...options.limits };
  const log = options.logger.child({ receiver: options.receiver });
  const waiting: Outgoing[] = [];
  let worker: Promise<void> | null = null;
  const closing = new AbortController();
  const result = (message: Outgoing, outcome: DeliveryResult) => options.onResult?.(options.receiver, message.event, outcome);

  async function work(): Promise<void> {
    for (let message = waiting.shift(); message !== undefined; message = waiting.shift()) {
      result(message, await deliver(message));
    }
    worker = null;
  }

  async function deliver(message: Outgoing): Promise<DeliveryResult> {
    for (let attempt = 1; ; attempt += 1) {
      const answer = await attemptOnce(message);
      if (answer === 'ok') {
        log.debug({ event: message.event, attempt }, 'notification sent');
        return 'sent';
      }
      const retry = answer.retry && attempt < limits.attempts && !closing.signal.aborted;
      log.warn({ event: message.event, attempt, reason: answer.reason, retrying: retry }, 'notification not delivered');
      if (!retry) return 'failed';
      await sleep(limits.backoffMs * 2 ** (attempt - 1), closing.signal);
    }
  }

  async function attemptOnce(message: Outgoing): Promise<'ok' | { retry: boolean; reason: string }> {
    try {
      const response = await fetch(message.url, {
        method: 'POST',
        headers: message.headers,
        body: message.body,
        redirect: 'manual',
        signal: AbortSignal.any([AbortSignal.timeout(limits.timeoutMs), closing.signal]),
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return 'ok';
      return { retry: response.status >= 500 || response.status === 429, reason: `HTTP ${response.status}` };
    } catch (error) {
      // No URL in the reason: a Slack or webhook URL is a secret.
      const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer in ${limits.timeoutMs / 1000} s` : connectionReason(error);
      return { retry: true, reason };
    }
  }

  return {
    push(message) {
      waiting.push(message);
      while (waiting.length > limits.queueLength) {
        const dropped = waiting.shift()!;
        log.warn({ event: dropped.event, queueLength: limits.queueLength }, 'notification queue full: the oldest message was dropped');
        result(dropped, 'dropped');
      }
      worker ??= work();
    },
    async drain(timeoutMs) {
      if (worker === null) return;
      const timer = setTimeout(() => closing.abort(new Error('the notification queue is closing')), timeoutMs);
      try {
        await worker;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function connectionReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return `connection failed (${cause.code})`;
  return error instanceof Error && error.name === 'AbortError' ? 'aborted: the queue is closing' : `connection failed (${errorMessage(error).split('\n')[0]?.slice(0, 80) ?? ''})`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
