import { asDrift } from '../plan/reasons.js';
import type { NotifyEvent } from './events.js';
import type { PassReport, ReportChange } from './report.js';
import { count } from '../plural.js';

/** Changes listed in one message; the rest are counted. */
export const MAX_CHANGES_IN_MESSAGE = 50;

/** One line a person reads: which source, what happened. */
export function summaryLine(event: NotifyEvent, report: PassReport): string {
  const where = `source "${report.source}" (${report.organization})${report.revision === null ? '' : ` at ${report.revision.slice(0, 12)}`}`;
  const applied = report.changes.filter((c) => c.outcome === 'applied').length;
  const override = report.overrideWindow ? ' (the sync window was overridden)' : '';
  switch (event) {
    case 'applied':
      return `policy-pool-sync: ${where} applied ${count(applied, 'change')}${override}`;
    case 'drift':
      return `policy-pool-sync: ${where} found drift and repaired ${count(applied, 'change')}${override}`;
    case 'failed':
      return `policy-pool-sync: ${where} failed: ${report.error ?? 'unknown error'}`;
    case 'conflict':
      return `policy-pool-sync: ${where} has a conflict with another source: ${report.errors.find((e) => e.startsWith('conflict:')) ?? report.error ?? ''}`;
    case 'guard':
      return `policy-pool-sync: ${where} refused to apply: ${report.errors.find((e) => e.includes('refusing to apply')) ?? report.error ?? ''}`;
    case 'recovered':
      return `policy-pool-sync: ${where} recovered: the pass succeeded after failures`;
    case 'window':
      return `policy-pool-sync: ${where} has ${count(report.changes.length, 'change')} waiting for the sync window`;
  }
}

export function changeLine(change: ReportChange): string {
  return `${change.action} ${change.resource} "${change.name}"${change.reason === '' ? '' : `: ${change.reason}`} (${change.outcome})`;
}

/** The changes a message lists: a `drift` event (the repo did not change) words their reasons as drift. */
function listedChanges(event: NotifyEvent, report: PassReport): ReportChange[] {
  const listed = report.changes.slice(0, MAX_CHANGES_IN_MESSAGE);
  return event === 'drift' ? listed.map((c) => ({ ...c, reason: asDrift(c.reason) })) : listed;
}

/** The body of a `webhook` receiver: documented by schemas/notification.schema.json. */
export function webhookPayload(event: NotifyEvent, report: PassReport, time: Date): Record<string, unknown> {
  return {
    version: 1,
    event,
    time: time.toISOString(),
    summary: summaryLine(event, report),
    source: report.source,
    organization: report.organization,
    revision: report.revision,
    trigger: report.trigger,
    ok: report.ok,
    error: report.error,
    errors: report.errors,
    changes: listedChanges(event, report),
    changesOmitted: Math.max(0, report.changes.length - MAX_CHANGES_IN_MESSAGE),
    windowClosed: report.windowClosed,
    overrideWindow: report.overrideWindow,
  };
}

/**
 * Slack's incoming-webhook format: the summary line, then the changes. Escaped as Slack's formatting rules ask
 * (`&`, `<`, `>`), so that a name or an error that holds `<!channel>` or `<https://…|text>` is shown as written, never
 * a mention or a disguised link.
 */
export function slackPayload(event: NotifyEvent, report: PassReport): Record<string, unknown> {
  const listed = listedChanges(event, report).map((c) => `• ${changeLine(c)}`);
  const omitted = report.changes.length - listed.length;
  if (omitted > 0) listed.push(`… and ${omitted} more`);
  const text = [summaryLine(event, report), ...listed].join('\n');
  return { text: slackEscaped(text) };
}

/** Text as Slack shows it literally: `&` → `&amp;`, `<` → `&lt;`, `>` → `&gt;` (and nothing else). */
export function slackEscaped(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
