/**
 * The reader of runs the evidence stage uses: `readEvidence` of the API's run side (api/evidence.ts), through the
 * pass's client (its queue, pacers and signal), its readout made into the planner's plain evidence (plan/evidence.ts).
 * A run still under way is left out (its outcome may change), except where the policy failed in it: a run waiting for
 * an override (`policy_override` with a soft-failed check, `post_plan_awaiting_decision` with a stage
 * `awaiting_override`) is evidence that the policy fails there, so it counts as failing, never as clean; the
 * finished-run cache still never keeps it (api/evidence-cache.ts). Whether the readout is partial is the API reader's
 * one answer (`isPartial`), taken as it is.
 */
import { readEvidence } from '../api/evidence.js';
import type { RunCache } from '../api/evidence-cache.js';
import type { EvidenceReadout } from '../api/evidence-types.js';
import type { RunApi } from '../api/run-types.js';
import type { PolicyReport } from '../model.js';
import type { Evidence, EvidenceRun, EvidenceWorkspace } from '../plan/evidence.js';

/** One policy's runs to read: in these workspaces (ids); its kind and how the service reports it, when known. */
export interface EvidenceAsk {
  policy: string;
  workspaceIds: string[];
  kind?: 'native' | 'opa';
  /** @default 'either' */
  via?: PolicyReport;
}

/** What the stage asks the reader of runs (live/run-evidence.ts over the API's runs). */
export interface EvidenceRequest {
  organization: string;
  workspaces: readonly EvidenceWorkspace[];
  policies: readonly EvidenceAsk[];
  /** Runs created before this time (ms since the epoch) are not read. */
  since: number;
  /** The most requests the read may send (`evidence.max-requests`); past it, what is read is `partial`. */
  maxRequests: number;
  /** The most time the read may take, in ms (`evidence.max-seconds`); past it, what is read is `partial`. */
  maxMs?: number;
}

/** What the reader read: by policy, by workspace id, the runs that evaluated it; whether it stopped short; its requests. */
export interface PlanEvidenceReadout extends Pick<Evidence, 'runs' | 'partial'> {
  requests: number;
}

export type EvidenceReader = (request: EvidenceRequest) => Promise<PlanEvidenceReadout>;

/** A reader over `runs`; `cache`: the findings of finished runs, kept across passes (none: each read starts cold). */
export function runEvidenceReader(runs: RunApi, cache?: RunCache, now: () => number = Date.now): EvidenceReader {
  return async (request) => {
    const workspaceIds = new Set(request.policies.flatMap((p) => p.workspaceIds));
    const readout = await readEvidence(runs, {
      organization: request.organization,
      workspaces: request.workspaces.filter((w) => workspaceIds.has(w.id)).map(({ id, name }) => ({ id, name })),
      policies: request.policies.map((p) => ({ name: p.policy, ...(p.kind === undefined ? {} : { kind: p.kind }), ...(p.via === undefined ? {} : { via: p.via }) })),
      windowMs: Math.max(0, now() - request.since),
      budget: request.maxRequests,
      ...(request.maxMs === undefined ? {} : { maxMs: request.maxMs }),
      ...(cache === undefined ? {} : { cache }),
      now,
    });
    return planEvidence(readout);
  };
}

/** The readout as the planner takes it: by policy, by workspace id, each counted run's creation time, outcome and kind. */
export function planEvidence(readout: EvidenceReadout): PlanEvidenceReadout {
  const runs: Record<string, Record<string, EvidenceRun[]>> = {};
  for (const { policy, workspaces } of readout.policies) {
    const byWorkspace: Record<string, EvidenceRun[]> = {};
    for (const w of workspaces) {
      const counted = w.runs.filter((run) => run.finished || run.outcome === 'failed' || run.outcome === 'counts-only').map((run): EvidenceRun => ({
        at: Date.parse(run.createdAt), outcome: run.outcome, level: run.enforcementLevel,
        ...(run.kind.planOnly || run.kind.refreshOnly ? { applies: false } : {}), ...(run.kind.isDestroy ? { destroy: true } : {}),
      }));
      if (counted.length > 0) byWorkspace[w.workspaceId] = counted;
    }
    runs[policy] = byWorkspace;
  }
  return { runs, partial: readout.partial, requests: readout.requests };
}
