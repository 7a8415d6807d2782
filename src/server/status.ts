import type { SourceStatus } from '../operations/source-status.js';

export type { PassResultLabel } from '../operations/pass-record.js';
export type { SourceStatus } from '../operations/source-status.js';

export interface Readiness {
  ready: boolean;
  reasons: string[];
}

/** Ready when every source has finished a pass, and the last one reached git (if any) and the API, which no request since failed to connect to. */
export function readiness(statuses: readonly SourceStatus[]): Readiness {
  const reasons: string[] = [];
  for (const s of statuses) {
    if (s.gitReached === false) reasons.push(`source ${s.name}: the last pass could not fetch the git repository: ${s.error ?? 'unknown error'}`);
    // Said at the first request that could not connect, before any pass has finished (daemon/api-unreachable.ts).
    else if (s.apiReached === false) reasons.push(`source ${s.name}: the API cannot be reached: ${s.error ?? 'unknown error'}`);
    else if (s.lastRunAt === null) reasons.push(`source ${s.name}: no pass has finished yet`);
  }
  return { ready: reasons.length === 0, reasons };
}
