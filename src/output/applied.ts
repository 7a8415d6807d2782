/** What an apply came to, printed after each source's plan (text and Markdown; JSON carries it per change). */
import { NOT_STARTED, type ChangeResult, type SourcePlan } from '../plan/types.js';
import { notAppliedLine } from './describe.js';
import { clip, escapeText, inlineCode } from './markdown-escape.js';
import { printable } from './printable.js';

/** One source's plan and the result of each of its changes (a PassOutcome). */
export interface AppliedSource {
  sourcePlan: SourcePlan;
  results: readonly ChangeResult[];
}

/** What the apply of one source came to, printed after its plan: each failure, then the counts. */
export function renderApplied(outcome: AppliedSource, format: 'text' | 'markdown'): string {
  const failures = outcome.results.filter((r) => r.outcome === 'failed');
  const planErrors = outcome.sourcePlan.plan?.errors.length ?? 0;
  if (outcome.results.length === 0) {
    // A saved plan not applied was said in place of its changes already.
    if (planErrors === 0 || notAppliedLine(outcome.sourcePlan) !== null) return '';
    return `\nNothing applied for source "${outcome.sourcePlan.name}": the plan has errors.\n`;
  }
  const counts = outcomeCounts([outcome]);
  if (format === 'markdown') {
    // Names and the API's words are escaped as the plan's are: no HTML or Markdown of theirs reaches a PR comment.
    const lines = ['', `#### Apply result for ${inlineCode(outcome.sourcePlan.name)}`, '', `${counts}.`, ''];
    for (const f of failures) lines.push(`- ❌ ${f.change.action} ${f.change.resource} ${inlineCode(f.change.name)} failed: ${escapeText(clip(f.message ?? 'unknown error', 1000))}`);
    for (const s of outcome.results.filter((r) => r.message === NOT_STARTED)) lines.push(`- ⏹ ${s.change.action} ${s.change.resource} ${inlineCode(s.change.name)}: not applied`);
    return `${lines.join('\n')}\n`;
  }
  const lines = ['', `Applied source "${printable(outcome.sourcePlan.name)}": ${counts}.`];
  // A failure's message is the API's or git's words: one printable line, so that it cannot forge one of the tool's.
  for (const f of failures) lines.push(`  - ${f.change.action} ${f.change.resource} "${printable(f.change.name)}" failed: ${printable(f.message ?? 'unknown error')}`);
  for (const s of outcome.results.filter((r) => r.message === NOT_STARTED)) lines.push(`  - ${s.change.action} ${s.change.resource} "${printable(s.change.name)}": not applied`);
  return `${lines.join('\n')}\n`;
}

function outcomeCounts(outcomes: readonly AppliedSource[]): string {
  const results = outcomes.flatMap((o) => o.results);
  const count = (outcome: string, action?: string) =>
    results.filter((r) => r.outcome === outcome && (action === undefined || r.change.action === action)).length;
  const line = `${count('applied', 'create')} created, ${count('applied', 'update')} updated, ${count('applied', 'replace')} replaced, ${count('applied', 'delete')} deleted`;
  const failed = count('failed');
  const skipped = count('skipped');
  return `${line}${failed > 0 ? `, ${failed} failed` : ''}${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

/** The closing line of an apply in text: complete, or finished with errors, with the counts. */
export function applySummary(outcomes: readonly AppliedSource[]): string {
  const results = outcomes.flatMap((o) => o.results);
  if (results.length === 0) return '';
  const line = outcomeCounts(outcomes);
  return results.some((r) => r.outcome === 'failed')
    ? `\nApply finished with errors: ${line}.\n`
    : `\nApply complete! Resources: ${line}.\n`;
}

