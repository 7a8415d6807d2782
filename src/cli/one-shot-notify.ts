import type { Redact } from '../redact.js';
import type { Config, SourceConfig } from '../config/types.js';
import type { Logger } from '../logger.js';
import { createNotifier, passReport, type Notifier } from '../notify/index.js';
import type { PassOutcome } from '../reconcile.js';

/** How long a one-shot run waits, at its end, for its notifications to be delivered. */
const NOTIFY_CLOSE_MS = 15_000;

/** A `--reconcile` run's notifications (the same receivers and events as the daemon's); none for a dry run or without `notifications:`. */
export interface OneShotNotifications {
  started(source: SourceConfig, revision: string | null): void;
  finished(source: SourceConfig, revision: string | null, outcome: PassOutcome): void;
  /** Waits for the messages queued (at most 15 s). */
  close(): Promise<void>;
}

export function oneShotNotifications(config: Config, mode: 'apply' | 'plan', env: NodeJS.ProcessEnv, logger: Logger, redact: Redact): OneShotNotifications {
  const notifier: Notifier | null = mode === 'apply' && (config.notifications ?? []).length > 0 ? createNotifier({ config, env, logger, redact }) : null;
  return {
    started(source, revision) {
      if (source.git !== null) notifier?.passStarted(source, revision);
    },
    finished(source, revision, outcome) {
      notifier?.passFinished(source, passReport(source, outcome, { trigger: 'reconcile', revision, ok: outcome.ok, error: null }));
    },
    close: async () => notifier?.close(NOTIFY_CLOSE_MS),
  };
}
