import { Cron, type CronOptions } from 'croner';
import { errorMessage } from './errors.js';

/**
 * The one cron dialect of the config, for schedules and sync windows alike (croner): five fields (minute hour
 * day-of-month month day-of-week), or six with seconds first; names (`mon`, `jan`), ranges, lists and steps; `7` is
 * Sunday too; with both day fields restricted, either may match (as in Vixie cron). Time zones and DST are croner's:
 * a time that a spring-forward skips runs at the first minute after the gap, a time that occurs twice runs once.
 */
const DIALECT: CronOptions = { mode: '5-or-6-parts', domAndDow: false };

/** Previous and next occurrences of a cron expression in a time zone. */
export interface CronTimes {
  /** The last occurrence at or before `time`, or null. */
  previous(time: Date): Date | null;
  /** The first occurrence after `time`, or null. */
  next(time: Date): Date | null;
}

/**
 * Reads `expression` in `timeZone` (an IANA name; the process's own when omitted). Throws an Error saying what is
 * wrong with it: a field it cannot read, a range that runs backwards, or an expression that never occurs.
 */
export function parseCron(expression: string, timeZone?: string): CronTimes {
  const cron = newCron(expression, timeZone);
  if (cron.nextRun() === null) throw new Error(`"${expression}" never occurs (no date matches every field)`);
  return {
    previous: (time) => cron.previousRuns(1, new Date(time.getTime() + 1))[0] ?? null,
    next: (time) => cron.nextRun(time),
  };
}

/** A running cron job calling `onTick` at each occurrence, in the process's time zone. */
export function scheduleCron(expression: string, onTick: () => void, onError: (error: unknown) => void): Cron {
  return new Cron(expression, { ...DIALECT, catch: (error) => onError(error) }, onTick);
}

function newCron(expression: string, timeZone: string | undefined): Cron {
  if (timeZone !== undefined) checkTimeZone(timeZone);
  try {
    return new Cron(expression, { ...DIALECT, paused: true, ...(timeZone === undefined ? {} : { timezone: timeZone }) });
  } catch (error) {
    throw new Error(cronMessage(expression, error));
  }
}

/** croner's message in words: what is wrong, and for a backwards range (`fri-mon`, `23-1`) what to write instead. */
function cronMessage(expression: string, error: unknown): string {
  const detail = errorMessage(error).replace(/^CronPattern: /, '');
  const backwards = /From value is larger than to value: '(\d+)-(\d+)'/.exec(detail);
  if (backwards !== null) {
    return `"${expression}" has a range that runs backwards (${backwards[1]}-${backwards[2]}), which never matches; ` +
      'a range goes from low to high: split one that wraps around into a list, e.g. "fri-mon" as "fri-sun,mon" or "23-1" as "23,0-1"';
  }
  return `"${expression}" is not a valid cron expression (${detail})`;
}

function checkTimeZone(timeZone: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new Error(`"${timeZone}" is not a time zone: use an IANA name such as "Europe/Berlin" or "UTC"`);
  }
}
