import type { Logger } from '../logger.js';
import { errorMessage, OutgoingFailure } from '../errors.js';
import { OutgoingHttp } from '../http/outgoing.js';

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
  /** How messages go out (the proxy, the back-off's clock). @default no proxy, the system's clock */
  http?: OutgoingHttp;
}

export interface DeliveryLimits {
  /** Messages waiting per receiver; past it the oldest is dropped. */
  queueLength: number;
  /** Attempts per message (429, 5xx, timeouts and dropped connections are retried, after a 429's or 503's `Retry-After` when it has one; other 4xx are not). */
  attempts: number;
  /** Time one attempt may take. */
  timeoutMs: number;
  /** Wait before the first retry, doubled at each retry up to a minute, half of it random. */
  backoffMs: number;
}

/** The longest wait between two tries of a message. */
const MAX_BACKOFF_MS = 60_000;

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
  const http = options.http ?? new OutgoingHttp();
  const result = (message: Outgoing, outcome: DeliveryResult) => options.onResult?.(options.receiver, message.event, outcome);

  async function work(): Promise<void> {
    for (let message = waiting.shift(); message !== undefined; message = waiting.shift()) {
      result(message, await deliver(message));
    }
    worker = null;
  }

  async function deliver(message: Outgoing): Promise<DeliveryResult> {
    const request = { method: 'POST' as const, url: message.url, headers: message.headers, body: message.body };
    const policy = { attempts: limits.attempts, timeoutMs: limits.timeoutMs, initialMs: limits.backoffMs, maxMs: MAX_BACKOFF_MS, jitter: 'half' as const };
    const notDelivered = (attempt: number, reason: string, retrying: boolean) =>
      log.warn({ event: message.event, attempt, reason, retrying }, 'notification not delivered');
    let tries = 1;
    try {
      const answer = await http.send(request, policy, {
        signal: closing.signal,
        onRetry: ({ attempt, reason, delayMs }) => {
          tries = attempt + 1;
          notDelivered(attempt, reason, true);
          log.debug({ event: message.event, delayMs: Math.round(delayMs) }, 'notification retry waiting');
        },
      });
      if (answer.status >= 200 && answer.status < 300) {
        log.debug({ event: message.event, attempt: tries }, 'notification sent');
        return 'sent';
      }
      notDelivered(tries, `HTTP ${answer.status}`, false);
    } catch (error) {
      notDelivered(tries, error instanceof OutgoingFailure ? error.message : errorMessage(error), false);
    }
    return 'failed';
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
