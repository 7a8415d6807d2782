import type { ChangeResult } from '../plan/types.js';
import { sourceErrors } from '../output/index.js';
import { asDrift } from '../plan/reasons.js';
import type { ChangeAction, ResourceType } from '../plan/types.js';
import type { PassOutcome } from '../reconcile.js';

/** Passes kept per source for `/status?history=1` and the status page. */
export const HISTORY_LENGTH = 20;
/** Changes listed per pass; the rest are counted in `changesOmitted`. */
export const MAX_LISTED_CHANGES = 100;

/** `sync`: asked for through `POST /sources/<name>/sync` (the `sync` command). */
/** `takeover`: a new leader's second pass, once the old leader's requests still on the wire can no longer land. */
export type TriggerReason = 'start-up' | 'schedule' | 'file-change' | 'webhook' | 'retry' | 'sync' | 'takeover';

export interface LoopPassEnd {
  trigger: TriggerReason;
  ok: boolean;
  timedOut: boolean;
  /** Aborted because this replica lost the lease: not a failure, the new leader runs its own pass. */
  handedOver: boolean;
  error: string | null;
  durationMs: number;
}

/** `handed-over`: aborted because this replica lost the lease mid-pass (leader election); the new leader syncs. */
export const PASS_RESULTS = ['success', 'failure', 'timeout', 'handed-over'] as const;
export type PassResultLabel = (typeof PASS_RESULTS)[number];

/** What became of one planned change: the apply's outcome, or `not-applied` when the plan was refused or never applied. */
export type PassChangeOutcome = ChangeResult['outcome'] | 'not-applied';

export interface PassChange {
  resource: ResourceType;
  name: string;
  action: ChangeAction;
  reason: string;
  outcome: PassChangeOutcome;
  /** Why it failed or was skipped; null otherwise. */
  message: string | null;
}

/** One finished pass of one source, as /status and the status page show it. Times are ISO 8601. */
export interface PassRecord {
  trigger: TriggerReason;
  /** The git commit the pass read, or null (a local folder, or the fetch failed). */
  revision: string | null;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  result: PassResultLabel;
  error: string | null;
  /** Changes planned; null when the pass made no plan. */
  drift: number | null;
  /**
   * The pass read the declared side as the last successful pass left it, so its changes are drift: live values
   * changed behind the tool's back (their reasons say "drift in"). false when the repo asked for them, or unknown.
   */
  liveDrift: boolean;
  /** The first MAX_LISTED_CHANGES changes, in plan order, with their outcomes. */
  changes: PassChange[];
  changesOmitted: number;
  /** The plan's warnings, such as undeclared policies kept because prune is off. */
  warnings: string[];
  /** What stopped the plan or failed in the apply; repo problems when no plan could be made. */
  errors: string[];
  /** `closed`: a sync window held the changes back; `overridden`: applied in a closed window (`sync --override-window`); absent: open. */
  window?: 'closed' | 'overridden';
}

export function resultLabel(end: LoopPassEnd): PassResultLabel {
  return end.handedOver ? 'handed-over' : end.timedOut ? 'timeout' : end.ok ? 'success' : 'failure';
}

/** The record of a pass that ended as `end`; `outcome` is null when the pass ended before runPass answered (a failed fetch, a throw). */
export function passRecord(
  end: LoopPassEnd, startedAt: Date, finishedAt: Date, revision: string | null, outcome: PassOutcome | null, error: string | null, liveDrift: boolean,
): PassRecord {
  const plan = outcome?.sourcePlan.plan ?? null;
  const results = new Map<unknown, ChangeResult>((outcome?.results ?? []).map((r) => [r.change, r]));
  const changes = (plan?.changes ?? []).slice(0, MAX_LISTED_CHANGES).map((change): PassChange => {
    const result = results.get(change);
    return {
      resource: change.resource,
      name: change.name,
      action: change.action,
      reason: liveDrift ? asDrift(change.reason) : change.reason,
      outcome: result?.outcome ?? 'not-applied',
      message: result?.message ?? null,
    };
  });
  return {
    trigger: end.trigger,
    revision,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: end.durationMs,
    result: resultLabel(end),
    error,
    drift: plan === null ? null : plan.changes.length,
    liveDrift: liveDrift && plan !== null,
    changes,
    changesOmitted: Math.max(0, (plan?.changes.length ?? 0) - MAX_LISTED_CHANGES),
    warnings: plan?.warnings ?? [],
    errors: outcome === null ? [] : [...sourceErrors(outcome.sourcePlan)],
  };
}
