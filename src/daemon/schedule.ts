import { schedule as cronSchedule, type ScheduledTask } from 'node-cron';
import type { Logger } from '../logger.js';

export interface Schedule {
  /** The next tick (before jitter), or null. */
  nextRun(): Date | null;
  stop(): Promise<void>;
}

export interface ScheduleOptions {
  name: string;
  /** 5-field cron, or 6 fields with seconds first. */
  expression: string;
  onTick(): void;
  logger: Logger;
  /** Upper bound of the random delay added to each tick, so many daemons do not hit the API at the same second. @default 3000 */
  maxJitterMs?: number;
  random?: () => number;
}

/** A cron schedule whose ticks are delayed by a random jitter of at most a tenth of the interval (and `maxJitterMs`). */
export function startSchedule(options: ScheduleOptions): Schedule {
  const random = options.random ?? Math.random;
  const pending = new Set<NodeJS.Timeout>();
  const log = options.logger.child({ source: options.name });
  const task: ScheduledTask = cronSchedule(
    options.expression,
    () => {
      const delay = Math.floor(random() * jitterBound(task, options.maxJitterMs ?? 3000));
      const timer = setTimeout(() => {
        pending.delete(timer);
        options.onTick();
      }, delay);
      pending.add(timer);
    },
    { name: `source:${options.name}`, logger: cronLogger(log) },
  );
  return {
    nextRun: () => task.getNextRun(),
    async stop() {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      await task.stop();
      await task.destroy();
    },
  };
}

function jitterBound(task: ScheduledTask, maxJitterMs: number): number {
  const [first, second] = task.getNextRuns(2);
  if (first === undefined || second === undefined) return 0;
  return Math.min(maxJitterMs, (second.getTime() - first.getTime()) / 10);
}

/** node-cron's own messages (missed executions and the like) go to our logger at debug level. */
function cronLogger(log: Logger) {
  return {
    info: (message: string) => log.debug({ cron: true }, message),
    warn: (message: string) => log.debug({ cron: true }, message),
    error: (message: string | Error) => log.warn({ cron: true, err: message }, 'scheduler error'),
    debug: (message: string | Error) => log.debug({ cron: true, detail: String(message) }, 'scheduler'),
  };
}
