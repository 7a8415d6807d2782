import type { LeaseStore } from './store.js';

/** Slack for the clocks of two machines when a renewal's wall-clock time is compared once, at start. */
const CLOCK_SLACK_MS = 5_000;

/**
 * Who holds the lease now, judged once by the wall clock (the record's renewTime, give or take CLOCK_SLACK_MS), or
 * null: nobody, an expired record, or a store that cannot be read. For a replica about to sync without election.
 */
export async function liveHolder(store: LeaseStore, now: Date, signal: AbortSignal): Promise<{ holder: string; renewTime: string } | null> {
  let current;
  try {
    current = await store.get(signal);
  } catch {
    return null;
  }
  if (current === null || current.record.holderIdentity === '') return null;
  const renewed = Date.parse(current.record.renewTime);
  if (!Number.isFinite(renewed) || !Number.isFinite(current.record.leaseDurationMs)) return null;
  if (now.getTime() - renewed > current.record.leaseDurationMs + CLOCK_SLACK_MS) return null;
  return { holder: current.record.holderIdentity, renewTime: current.record.renewTime };
}
