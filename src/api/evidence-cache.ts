/**
 * The findings of finished runs, by run id: a finished run's outcomes never change, so a daemon reads each once. In
 * memory, bounded (the runs used longest ago are forgotten first); `live/evidence-cache-file.ts` keeps it in the
 * state dir between runs. Only finished findings are kept.
 */
import type { RunFindings } from './evidence-types.js';

/** Enough for 2,000 workspaces with 20 runs each in the window. */
export const MAX_EVIDENCE_CACHE_ENTRIES = 40_000;

export interface RunCache {
  get(runId: string): RunFindings | undefined;
  /** Keeps finished findings; others are ignored. */
  put(findings: RunFindings): void;
  /** Every entry, least recently used first. */
  entries(): IterableIterator<RunFindings>;
  readonly size: number;
  /** Bumped by every change, so an owner can tell whether there is anything new to save. */
  readonly revision: number;
}

export function createRunCache(initial: Iterable<RunFindings> = [], maxEntries = MAX_EVIDENCE_CACHE_ENTRIES): RunCache {
  const byId = new Map<string, RunFindings>();
  let revision = 0;
  const keep = (findings: RunFindings): void => {
    byId.delete(findings.runId);
    byId.set(findings.runId, findings);
    while (byId.size > maxEntries) {
      const oldest = byId.keys().next().value;
      if (oldest === undefined) break;
      byId.delete(oldest);
    }
  };
  for (const findings of initial) if (findings.finished) keep(findings);
  return {
    get(runId) {
      const found = byId.get(runId);
      if (found !== undefined) {
        byId.delete(runId);
        byId.set(runId, found);
      }
      return found;
    },
    put(findings) {
      if (!findings.finished) return;
      keep(findings);
      revision += 1;
    },
    entries: () => byId.values(),
    get size() {
      return byId.size;
    },
    get revision() {
      return revision;
    },
  };
}
