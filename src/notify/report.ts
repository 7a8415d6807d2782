import type { SourceConfig } from '../config/types.js';
import { passErrors, sourceErrors } from '../output/index.js';
import type { PassOutcome } from '../reconcile.js';

/** One change of a pass, as notifications name it. */
export interface ReportChange {
  resource: string;
  name: string;
  action: string;
  /** Why, as the plan says it ("differs in description"); a `drift` event says "drift in". */
  reason: string;
  /** `applied`, `failed`, `skipped`, or `not-applied` (the plan was refused, or a closed sync window held it). */
  outcome: string;
  /** Why it failed or was skipped (a set version's `error-message` from the service); null otherwise. */
  message?: string | null;
}

/** What one finished pass came to, as the notifier sees it: the same for the daemon and the one-shot modes. */
export interface PassReport {
  source: string;
  organization: string;
  kind: 'path' | 'git';
  trigger: string;
  /** The git commit the pass read, or null (a local folder, or the fetch failed). */
  revision: string | null;
  ok: boolean;
  /** The error of a failed pass, or null. */
  error: string | null;
  /** false when the pass made no plan. */
  planned: boolean;
  changes: ReportChange[];
  /** The plan's refusals and problems: guards, conflicts, an invalid repo. */
  errors: string[];
  /** A closed sync window held the changes back (`changes` then waits for the window). */
  windowClosed: boolean;
  /** `sync --override-window` applied the changes in a closed window. */
  overrideWindow: boolean;
}

export interface ReportContext {
  trigger: string;
  revision: string | null;
  /** The pass's own verdict: false for a timeout or a failed fetch too. */
  ok: boolean;
  error: string | null;
  windowClosed?: boolean;
  overrideWindow?: boolean;
}

/** The report of a pass that ended with `outcome` (null when it ended before planning: a failed fetch, a timeout). */
export function passReport(source: SourceConfig, outcome: PassOutcome | null, context: ReportContext): PassReport {
  const plan = outcome?.sourcePlan.plan ?? null;
  const results = new Map((outcome?.results ?? []).map((r) => [r.change as unknown, r]));
  const errors = outcome === null ? [] : [...sourceErrors(outcome.sourcePlan)];
  const failures = outcome === null ? [] : passErrors(outcome.sourcePlan, outcome.results);
  return {
    source: source.name,
    organization: source.organization,
    kind: source.git === null ? 'path' : 'git',
    trigger: context.trigger,
    revision: context.revision,
    ok: context.ok,
    error: context.ok ? null : (context.error ?? (failures.join('; ') || 'the pass failed')),
    planned: plan !== null,
    changes: (plan?.changes ?? []).map((c) => ({ resource: c.resource, name: c.name, action: c.action, reason: c.reason, outcome: results.get(c)?.outcome ?? 'not-applied', message: results.get(c)?.message ?? null })),
    errors,
    windowClosed: context.windowClosed ?? false,
    overrideWindow: context.overrideWindow ?? false,
  };
}
