/** A five-field cron expression (minute hour day-of-month month day-of-week), matched against wall-clock fields. */
export interface CronMatcher {
  matches(fields: WallClock): boolean;
}

/** A minute on a wall clock: month 1-12, weekday 0-6 (Sunday 0). */
export interface WallClock {
  minute: number;
  hour: number;
  day: number;
  month: number;
  weekday: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Parses `expression`; throws an Error naming the field it cannot read. */
export function parseCron(expression: string): CronMatcher {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) throw new Error(`"${expression}" is not a five-field cron expression`);
  const [minute, hour, day, month, weekday] = parts as [string, string, string, string, string];
  const sets = {
    minute: field(minute, 0, 59, []),
    hour: field(hour, 0, 23, []),
    day: field(day, 1, 31, []),
    month: field(month, 1, 12, MONTHS, 1),
    weekday: field(weekday, 0, 7, DAYS),
  };
  if (sets.weekday.has(7)) sets.weekday.add(0);
  const dayRestricted = day !== '*';
  const weekdayRestricted = weekday !== '*';
  return {
    matches(t) {
      if (!sets.minute.has(t.minute) || !sets.hour.has(t.hour) || !sets.month.has(t.month)) return false;
      // As in cron: with both day fields restricted, either may match.
      if (dayRestricted && weekdayRestricted) return sets.day.has(t.day) || sets.weekday.has(t.weekday);
      return sets.day.has(t.day) && sets.weekday.has(t.weekday);
    },
  };
}

function field(text: string, min: number, max: number, names: string[], nameBase = 0): Set<number> {
  const values = new Set<number>();
  const value = (v: string): number => {
    const named = names.indexOf(v.toLowerCase());
    const n = named >= 0 ? named + nameBase : /^\d+$/.test(v) ? Number(v) : NaN;
    if (!(n >= min && n <= max)) throw new Error(`cron field "${text}": "${v}" is not between ${min} and ${max}`);
    return n;
  };
  for (const item of text.split(',')) {
    const [range = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new Error(`cron field "${text}": bad step "${stepText ?? ''}"`);
    let from: number;
    let to: number;
    if (range === '*') [from, to] = [min, max];
    else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      [from, to] = [value(a), value(b)];
    } else [from, to] = [value(range), stepText === undefined ? value(range) : max];
    for (let n = from; n <= to; n += step) values.add(n);
  }
  return values;
}

const FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock fields of `time` in `timeZone` (an IANA name). */
export function wallClock(time: Date, timeZone: string): WallClock {
  let format = FORMATS.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', minute: 'numeric', hour: 'numeric', day: 'numeric', month: 'numeric', weekday: 'short' });
    FORMATS.set(timeZone, format);
  }
  const parts = format.formatToParts(time);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return {
    minute: Number(get('minute')),
    hour: Number(get('hour')),
    day: Number(get('day')),
    month: Number(get('month')),
    weekday: DAYS.indexOf(get('weekday').toLowerCase().slice(0, 3)),
  };
}
