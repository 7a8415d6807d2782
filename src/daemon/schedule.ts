import type { Cron } from 'croner';
import type { Logger } from '../logger.js';
import { scheduleCron } from '../cron.js';

export interface Schedule {
  /** The next tick (before jitter), or null. */
  nextRun(): Date | null;
  /** The time between the next two ticks (before jitter), or null. */
  periodMs(): number | null;
  stop(): Promise<void>;
}

export interface ScheduleOptions {
  name: string;
  /** 5-field cron, or 6 fields with seconds first (the dialect of `cron.ts`), in the process's time zone. */
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
  const job: Cron = scheduleCron(
    options.expression,
    () => {
      const delay = Math.floor(random() * jitterBound(job, options.maxJitterMs ?? 3000));
      const timer = setTimeout(() => {
        pending.delete(timer);
        options.onTick();
      }, delay);
      pending.add(timer);
    },
    (error) => log.warn({ cron: true, err: error }, 'scheduler error'),
  );
  return {
    nextRun: () => job.nextRun(),
    periodMs: () => periodOf(job),
    stop() {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
      job.stop();
      return Promise.resolve();
    },
  };
}

function periodOf(job: Cron): number | null {
  const [first, second] = job.nextRuns(2);
  return first === undefined || second === undefined ? null : second.getTime() - first.getTime();
}

/**
 * A tenth of the time from this tick to the next (one occurrence worked out, not two: 200 sources on one schedule
 * tick in one timer callback), and at most `maxJitterMs`.
 */
function jitterBound(job: Cron, maxJitterMs: number): number {
  return Math.min(maxJitterMs, (job.msToNext() ?? 0) / 10);
}
