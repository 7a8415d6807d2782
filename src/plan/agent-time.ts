import type { LiveAgent } from '../model.js';

/** A full ISO 8601 date and time with its offset, as the API writes them: `2026-03-01T10:00:00.000Z`. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

export interface Seen {
  /** When the agent was last known alive, in epoch milliseconds. */
  at: number;
  /** The date as the API gave it. */
  time: string;
  /** false when the agent never pinged and `at` is its registration. */
  pinged: boolean;
}

/**
 * The agent's last ping, or its registration when it never pinged; or why the clean-up leaves it alone. `Date.parse`
 * reads `"0"` or `"12"` as years long past, which would delete a live agent: only a full timestamp is believed. A
 * time in the future (a clock or a server that is wrong) is believed by nobody either.
 */
export function lastSeen(agent: LiveAgent, poolName: string, now: number): Seen | { warning: string } | null {
  const pinged = agent.lastPingAt !== null;
  const time = agent.lastPingAt ?? agent.createdAt;
  if (time === null) return null;
  const field = pinged ? 'last-ping-at' : 'created-at';
  const who = `agent "${agent.name ?? agent.id}" of pool "${poolName}"`;
  const at = TIMESTAMP.test(time) ? Date.parse(time) : NaN;
  if (Number.isNaN(at)) return { warning: `${who} has ${field} ${JSON.stringify(time)}, not a full ISO 8601 timestamp; agent clean-up leaves it alone` };
  if (at > now) return { warning: `${who} has ${field} ${time}, in the future; agent clean-up leaves it alone (check the clocks)` };
  return { at, time, pinged };
}
