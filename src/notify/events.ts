import type { PassReport } from './report.js';

/** The events a receiver can subscribe to. */
export const NOTIFY_EVENTS = ['applied', 'drift', 'failed', 'conflict', 'guard', 'recovered', 'window'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

/** What the notifier remembers of a source between passes. */
export interface SourceMemory {
  /** The last pass failed, and its failure was notified: the next failures are not. */
  failing: boolean;
  /** The revision of the last successful pass (null: a local folder, or none yet). */
  appliedRevision: string | null;
  /** A pass of this source has succeeded before. */
  succeeded: boolean;
  /** The changes a closed window held back, as last notified: the same count is not notified again. */
  waiting: number | null;
}

export function freshMemory(): SourceMemory {
  return { failing: false, appliedRevision: null, succeeded: false, waiting: null };
}

/**
 * The events of one pass, and what to remember for the next:
 * - `failed`, `conflict` (another source owns a resource) or `guard` (max-deletes, allow-empty): once, when a source
 *   starts failing; the passes that fail after it notify nothing, until `recovered` (the first success after them).
 * - `applied`: changes were made for a new revision, or a file change of a local folder;
 *   `drift`: changes were made although the declared side had not changed: live state had been changed behind the tool's back.
 * - `window`: a closed sync window holds changes back (once per count of waiting changes).
 */
export function passEvents(report: PassReport, memory: SourceMemory): { events: NotifyEvent[]; memory: SourceMemory } {
  if (!report.ok) {
    const events: NotifyEvent[] = memory.failing ? [] : [failureKind(report)];
    return { events, memory: { ...memory, failing: true } };
  }
  const events: NotifyEvent[] = [];
  if (memory.failing) events.push('recovered');
  const applied = report.changes.filter((c) => c.outcome === 'applied').length;
  let waiting: number | null = null;
  if (report.windowClosed && report.changes.length > 0) {
    waiting = report.changes.length;
    if (memory.waiting !== waiting) events.push('window');
  } else if (applied > 0) {
    events.push(declaredUnchanged(report, memory) ? 'drift' : 'applied');
  }
  const appliedRevision = report.windowClosed ? memory.appliedRevision : report.revision;
  return { events, memory: { failing: false, appliedRevision, succeeded: memory.succeeded || !report.windowClosed, waiting } };
}

/**
 * Whether a pass read the declared side as the last successful pass left it (the same git revision; for a local
 * folder, a pass no file change started): then every change it plans is drift, a live value changed behind the
 * tool's back. Unknown before a first success: false.
 */
export function declaredUnchanged(
  pass: { kind: 'path' | 'git'; revision: string | null; trigger: string },
  before: { succeeded: boolean; appliedRevision: string | null },
): boolean {
  if (!before.succeeded) return false;
  if (pass.kind === 'git') return pass.revision !== null && pass.revision === before.appliedRevision;
  return pass.trigger !== 'file-change' && pass.trigger !== 'start-up';
}

function failureKind(report: PassReport): NotifyEvent {
  if (report.errors.some((e) => e.startsWith('conflict:'))) return 'conflict';
  if (report.errors.some((e) => /refusing to apply/.test(e) && /max-deletes|allow-empty/.test(e))) return 'guard';
  return 'failed';
}
