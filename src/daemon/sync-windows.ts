import type { SyncWindow } from '../config/types.js';
import { parseCron, wallClock } from './cron-match.js';

/** Whether changes may be applied now, and why not. */
export interface WindowState {
  closed: boolean;
  /** Which window decides, e.g. `deny "0 22 * * 5" for 2h (Europe/Berlin)`; null when open with no window in force. */
  reason: string | null;
}

const MINUTE = 60_000;

/**
 * Sync windows at `now`: closed while a `deny` window is open, or, when the source has `allow` windows, while none
 * of them is. A window is open for `duration` from each time its cron schedule matches, in its time zone.
 */
export function windowState(windows: readonly SyncWindow[], now: Date): WindowState {
  const deny = windows.find((w) => w.kind === 'deny' && isOpen(w, now));
  if (deny !== undefined) return { closed: true, reason: describe(deny) };
  const allows = windows.filter((w) => w.kind === 'allow');
  if (allows.length === 0) return { closed: false, reason: null };
  const allow = allows.find((w) => isOpen(w, now));
  return allow === undefined ? { closed: true, reason: `outside every allow window: ${allows.map(describe).join(', ')}` } : { closed: false, reason: describe(allow) };
}

/** Whether the schedule matched a minute in the last `durationMinutes` (now included). */
function isOpen(window: SyncWindow, now: Date): boolean {
  const matcher = parseCron(window.schedule);
  const start = Math.floor(now.getTime() / MINUTE) * MINUTE;
  for (let back = 0; back < window.durationMinutes; back += 1) {
    if (matcher.matches(wallClock(new Date(start - back * MINUTE), window.timezone))) return true;
  }
  return false;
}

function describe(window: SyncWindow): string {
  return `${window.kind} "${window.schedule}" for ${window.durationMinutes} min (${window.timezone})`;
}

/** A problem with a window (its cron expression or time zone), or null; for the config checks. */
export function windowProblem(window: SyncWindow): string | null {
  try {
    parseCron(window.schedule);
    wallClock(new Date(0), window.timezone);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
