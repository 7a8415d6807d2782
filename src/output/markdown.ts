import { normalizeLineEnds } from '../line-ends.js';
import type { Change, ChangeAction, SourcePlan } from '../plan/types.js';
import { closingLines, codeDiffLines, describeCode, formatValue, hasCodeDiff, noPlanLine, pushAll, sourceErrors, summarize } from './describe.js';

/** A pull-request comment should stay well under GitHub's 65,536 characters: long diffs are cut. */
const MAX_DIFF_LINES = 400;
const LABEL: Record<ChangeAction, string> = { create: '+ create', update: '~ update', replace: '-/+ replace', delete: '- delete' };

function value(name: string, v: unknown): string {
  return name === 'code' ? describeCode(v) : inlineCode(formatValue(v));
}

function changeItem(change: Change): string[] {
  const id = change.id === null ? '' : ` (${inlineCode(change.id)})`;
  const lines = [`- **${LABEL[change.action]}** ${change.resource} ${inlineCode(change.name)}${id}: ${escapeText(change.reason)}`];
  for (const [name, field] of Object.entries(change.fields)) {
    if (name === 'code' && hasCodeDiff(change)) {
      lines.push(`  - ${inlineCode(name)}: changed, see the diff below`);
    } else if (change.action === 'create' || field.before === null) {
      lines.push(`  - ${inlineCode(name)}: ${value(name, field.after)}`);
    } else {
      lines.push(`  - ${inlineCode(name)}: ${value(name, field.before)} → ${value(name, field.after)}`);
    }
  }
  return lines;
}

function diffBlock(change: Change): string[] {
  const all = codeDiffLines(change);
  const shown = all.slice(0, MAX_DIFF_LINES);
  if (all.length > shown.length) shown.push(`… ${all.length - shown.length} more lines of this diff`);
  return [
    `<details><summary>Code diff of ${escapeHtml(change.resource)} <code>${escapeHtml(change.name)}</code></summary>`,
    '',
    ...fencedBlock(shown, 'diff'),
    '',
    '</details>',
    '',
  ];
}

function renderSource(source: SourcePlan): string[] {
  const { plan } = source;
  const revision = source.revision === null ? 'no revision' : `revision ${inlineCode(source.revision)}`;
  const lines = [`### Source ${inlineCode(source.name)}`, '', `Organization ${inlineCode(source.organization)}, ${revision}.`, ''];
  if (plan === null) lines.push(`**${noPlanLine(source)}**`, '');
  else if (plan.changes.length === 0) lines.push('No changes.', '');
  else {
    for (const change of plan.changes) pushAll(lines, changeItem(change));
    lines.push('');
  }
  for (const change of plan?.changes ?? []) if (hasCodeDiff(change)) pushAll(lines, diffBlock(change));
  const warnings = plan?.warnings ?? [];
  if (warnings.length > 0) {
    lines.push('**Warnings**', '');
    for (const warning of warnings) lines.push(`- ⚠️ ${escapeText(warning)}`);
    lines.push('');
  }
  const errors = sourceErrors(source);
  if (errors.length > 0) {
    lines.push('**Errors**', '');
    for (const error of errors) lines.push(`- ❌ ${escapeText(error)}`);
    lines.push('');
  }
  return lines;
}

/** The plan for a pull-request comment or a CI step summary: a heading, a summary table, then each source. */
export function renderMarkdown(plans: readonly SourcePlan[]): string {
  const summary = summarize(plans);
  const lines = [
    '## policy-pool-sync plan',
    '',
    ...closingLines(plans).flatMap((line) => [`**${line}**`, '']),
    '| Create | Update | Replace | Delete |',
    '| ---: | ---: | ---: | ---: |',
    `| ${summary.create} | ${summary.update} | ${summary.replace} | ${summary.delete} |`,
    '',
  ];
  for (const source of plans) pushAll(lines, renderSource(source));
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}

// Escaping: any text from the repo or the API must print as itself.

/** Free text for Markdown: HTML special characters as entities, Markdown punctuation backslash-escaped, on one line. */
function escapeText(text: string): string {
  return normalizeLineEnds(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~#!])/g, '\\$1')
    .replace(/\n/g, ' ');
}

/** Text for inside HTML tags such as `<summary>`. */
function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** A code span that holds any text: a fence longer than any backtick run inside, pipes escaped for tables. */
export function inlineCode(text: string): string {
  const oneLine = normalizeLineEnds(text).replace(/\n/g, ' ');
  const fence = '`'.repeat(longestRun(oneLine, '`') + 1);
  const pad = oneLine.startsWith('`') || oneLine.endsWith('`') || oneLine.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${oneLine.replace(/\|/g, '\\|')}${pad}${fence}`;
}

/** A fenced code block that no line inside can close early. */
function fencedBlock(lines: readonly string[], language: string): string[] {
  const fence = '`'.repeat(Math.max(3, longestRun(lines.join('\n'), '`') + 1));
  return [`${fence}${language}`, ...lines, fence];
}
