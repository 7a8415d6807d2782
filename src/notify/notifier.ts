import { knownSecrets } from '../config/secrets.js';
import { createRedactor, type Redact } from '../redact.js';
import type { Config, SourceConfig } from '../config/types.js';
import { OutgoingHttp } from '../http/outgoing.js';
import { proxySettings } from '../http/proxy.js';
import type { RetryClock } from '../http/retry.js';
import type { Logger } from '../logger.js';
import { createDeliveryQueue, type DeliveryLimits, type DeliveryQueue, type DeliveryResult } from './delivery.js';
import { freshMemory, passEvents, type NotifyEvent, type SourceMemory } from './events.js';
import { openReceiver, statusDescription, type Receiver } from './receivers.js';
import type { PassReport } from './report.js';

export interface NotifierOptions {
  config: Config;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Each message's fate, for the metrics. */
  onResult?(receiver: string, event: string, result: DeliveryResult): void;
  limits?: Partial<DeliveryLimits>;
  now?: () => Date;
  /** The one redactor, which every message body goes through. @default the one of `config` and `env` */
  redact?: Redact;
  /** The back-off's time. @default the system's */
  clock?: RetryClock;
}

/** Tells the configured receivers what passes did. Never throws once opened, and never makes a pass wait. */
export interface Notifier {
  /** A pass of a git source read `revision`: commit statuses go `pending`. */
  passStarted(source: SourceConfig, revision: string | null): void;
  /** Queues the events of a finished pass, and the final commit status. Returns the events. */
  passFinished(source: SourceConfig, report: PassReport): NotifyEvent[];
  /** Waits for the queued messages (at most `timeoutMs`); what is left is dropped. */
  close(timeoutMs: number): Promise<void>;
}

/** Opens every receiver; a missing URL or secret is a UsageError at start-up, not a silent loss later. */
export function createNotifier(options: NotifierOptions): Notifier {
  // Through the proxy of HTTP_PROXY, HTTPS_PROXY and NO_PROXY, as the API's requests.
  const http = new OutgoingHttp({ proxy: proxySettings(options.env), ...(options.clock === undefined ? {} : { clock: options.clock }) });
  const receivers = (options.config.notifications ?? []).map((c) => ({
    receiver: openReceiver(c, options.env),
    queue: createDeliveryQueue({
      receiver: c.name, logger: options.logger, http, ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
    }),
  }));
  const memories = new Map<string, SourceMemory>();
  const now = options.now ?? (() => new Date());
  const forSource = (source: string) => receivers.filter(({ receiver }) => receiver.config.sources === null || receiver.config.sources.includes(source));
  const redact = options.redact ?? createRedactor(knownSecrets(options.config, options.env));
  const push = (queue: DeliveryQueue, message: ReturnType<Receiver['event']>) => message !== null && queue.push({ ...message, body: redact(message.body) });

  return {
    passStarted(source, revision) {
      const report = { source: source.name, organization: source.organization, revision };
      for (const { receiver, queue } of forSource(source.name)) push(queue, receiver.status('pending', report, 'a pass is running', source.git?.ref ?? null));
    },
    passFinished(source, report) {
      const { events, memory } = passEvents(report, memories.get(source.name) ?? freshMemory());
      memories.set(source.name, memory);
      if (events.length > 0) options.logger.info({ source: source.name, events }, 'pass events');
      const time = now();
      for (const { receiver, queue } of forSource(source.name)) {
        push(queue, receiver.status(report.ok ? 'success' : 'failure', report, statusDescription(report), source.git?.ref ?? null));
        for (const event of events) {
          if (receiver.config.events === null || receiver.config.events.includes(event)) push(queue, receiver.event(event, report, time));
        }
      }
      return events;
    },
    async close(timeoutMs) {
      await Promise.all(receivers.map(({ queue }) => queue.drain(timeoutMs)));
      await http.close();
    },
  };
}
