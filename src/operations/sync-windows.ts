import type { SyncWindow } from '../config/types.js';
import { parseCron, type CronTimes } from '../cron.js';
import { errorMessage } from '../errors.js';

/** Whether changes may be applied now, and why not. */
export interface WindowState {
  closed: boolean;
  /** Which window decides, e.g. `deny "0 22 * * 5" for 2h (Europe/Berlin)`; null when open with no window in force. */
  reason: string | null;
}

/** A source's sync windows, read once; `state` is worked out once per minute, so a probe costs nothing. */
export interface SyncWindows {
  state(now: Date): WindowState;
}

const MINUTE = 60_000;

/**
 * Reads a source's windows (throws as `windowProblem` says for a window that cannot be read or never opens). A
 * window is open for `duration` from each occurrence of its cron schedule, in its time zone; the state at a time
 * comes from the window's previous occurrence, so its cost does not grow with the duration. Windows start and end on
 * whole minutes, so the state of a minute is kept until the next one.
 */
export function openSyncWindows(windows: readonly SyncWindow[]): SyncWindows {
  const parsed = windows.map((window) => ({ window, times: readWindow(window) }));
  let cached: { minute: number; state: WindowState } | null = null;
  return {
    state(now) {
      const minute = Math.floor(now.getTime() / MINUTE);
      if (cached?.minute !== minute) cached = { minute, state: decide(parsed, now) };
      return cached.state;
    },
  };
}

/** Sync windows at `now` (each read anew; the daemon keeps an `openSyncWindows` per source instead). */
export function windowState(windows: readonly SyncWindow[], now: Date): WindowState {
  return openSyncWindows(windows).state(now);
}

/**
 * Closed while a `deny` window is open, or, when the source has `allow` windows, while none of them is.
 */
function decide(windows: ReadonlyArray<{ window: SyncWindow; times: CronTimes }>, now: Date): WindowState {
  const deny = windows.find((w) => w.window.kind === 'deny' && isOpen(w.window, w.times, now));
  if (deny !== undefined) return { closed: true, reason: describe(deny.window) };
  const allows = windows.filter((w) => w.window.kind === 'allow');
  if (allows.length === 0) return { closed: false, reason: null };
  const allow = allows.find((w) => isOpen(w.window, w.times, now));
  return allow === undefined
    ? { closed: true, reason: `outside every allow window: ${allows.map((w) => describe(w.window)).join(', ')}` }
    : { closed: false, reason: describe(allow.window) };
}

/** Whether the window's last start is less than its duration ago. */
function isOpen(window: SyncWindow, times: CronTimes, now: Date): boolean {
  const start = times.previous(now);
  return start !== null && now.getTime() - start.getTime() < window.durationMinutes * MINUTE;
}

function describe(window: SyncWindow): string {
  return `${window.kind} "${window.schedule}" for ${window.durationMinutes} min (${window.timezone})`;
}

function readWindow(window: SyncWindow): CronTimes {
  if (window.durationMinutes <= 0) throw new Error(`duration ${window.durationMinutes}m: the window is never open; give it a duration of at least 1m`);
  if (window.schedule.trim().split(/\s+/).length !== 5) {
    throw new Error(`"${window.schedule}" is not a five-field cron expression (minute hour day-of-month month day-of-week); windows start on whole minutes`);
  }
  return parseCron(window.schedule, window.timezone);
}

/** Why a window cannot be used (its cron expression cannot be read or never occurs, its time zone is unknown, its duration is 0), or null; for the start-up checks. */
export function windowProblem(window: SyncWindow): string | null {
  try {
    readWindow(window);
    return null;
  } catch (error) {
    return errorMessage(error);
  }
}
