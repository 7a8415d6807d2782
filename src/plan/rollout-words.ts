/** A rollout's marker record in words, as a plan's `rollout` field shows it. Pure. */
import type { RolloutRecord } from '../model.js';

/** e.g. `held since 2026-11-28T00:03:22Z`, `promoted (began 2026-11-20T09:00:00Z)`; null: no record. */
export function recordWords(record: RolloutRecord | null): string | null {
  if (record === null) return null;
  const began = new Date(record.startedAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return record.state === 'held' ? `held since ${began}` : `promoted (began ${began})`;
}
