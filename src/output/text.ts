import type { ChangeAction, SourcePlan } from '../plan/types.js';
import { palette, type Palette } from './color.js';
import { NO_CHANGES, NO_CHANGES_WITH_ERRORS, planLine, summarize, totalChanges } from './summary.js';
import { legend, renderChange } from './text-change.js';

export interface TextOptions {
  /** ANSI colour; the caller decides (see `shouldColor`). */
  color: boolean;
}

function header(source: SourcePlan): string {
  const revision = source.revision === null ? 'no revision' : `revision ${source.revision}`;
  return `Source "${source.name}": organization "${source.organization}", ${revision}`;
}

function renderSource(source: SourcePlan, p: Palette): string[] {
  const { plan } = source;
  const lines = [p.bold(header(source)), ''];
  if (plan.changes.length === 0) lines.push('  No changes.', '');
  for (const change of plan.changes) lines.push(...renderChange(change, p), '');
  if (plan.warnings.length > 0) {
    lines.push(p.yellow('Warnings:'), ...plan.warnings.map((w) => `  - ${w}`), '');
  }
  if (plan.errors.length > 0) {
    lines.push(p.red('Errors:'), ...plan.errors.map((e) => `  - ${e}`), '');
  }
  return lines;
}

/** The plan in Terraform's vocabulary and layout, ending with the `Plan: ...` line. */
export function renderText(plans: readonly SourcePlan[], options: TextOptions): string {
  const p = palette(options.color);
  const summary = summarize(plans);
  const lines: string[] = [];
  const actions = new Set<ChangeAction>(plans.flatMap((s) => s.plan.changes.map((c) => c.action)));
  if (actions.size > 0) {
    lines.push('Resource actions are indicated with the following symbols:', ...legend(actions, p), '');
  }
  for (const source of plans) lines.push(...renderSource(source, p));
  const hasErrors = plans.some((s) => s.plan.errors.length > 0);
  if (totalChanges(summary) > 0) lines.push(p.bold(planLine(summary)));
  else lines.push(p.bold(hasErrors ? NO_CHANGES_WITH_ERRORS : NO_CHANGES));
  return `${lines.join('\n')}\n`;
}
