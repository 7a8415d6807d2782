import type { Change, ChangeAction, SourcePlan } from '../plan/types.js';
import { evidenceLine, heldBackLine, levelLines, policyLines, rolloutLine } from './evidence-words.js';
import { blockLines, blockOf, blockSummary, blockSummaryLine, planWarnings, visibleBlock } from './enforcement-words.js';
import type { RolloutStatus } from '../plan/rollout.js';
import { tokenLine } from '../plan/tokens.js';
import { closingLines, codeDiffLines, contentFileLines, describeCode, formatValue, hasCodeDiff, keptLine, noChangeLine, noPlanLine, shownFields, sourceErrors, summarize, wildcardLines, type PlanSummary } from './describe.js';
import { clip, escapeHtml, escapeText, fencedBlock, inlineCode } from './markdown-escape.js';
import { fitToBudget, type Listing } from './markdown-budget.js';
import { count } from '../plural.js';

export { inlineCode } from './markdown-escape.js';

/** The whole document stays under this, so it fits in one GitHub comment (65,536 characters) with room to spare. */
export const MARKDOWN_LIMIT = 60_000;
/** Each code diff is cut after this many lines, and each line after this many characters. */
const MAX_DIFF_LINES = 60;
const MAX_DIFF_LINE = 200;

const ORDER: readonly ChangeAction[] = ['create', 'replace', 'update', 'delete'];
const LABEL: Record<ChangeAction, string> = { create: '+ create', update: '~ update', replace: '-/+ replace', delete: '- delete' };
const GROUP: Record<ChangeAction, string> = { create: 'To create', update: 'To update in place', replace: 'To replace', delete: 'To delete' };

/**
 * The first line of the document: a hidden marker naming the source(s), so that a bot can find and update its own
 * comment instead of adding one per run. Several sources make one comment naming them all, comma-separated.
 */
export function markerLine(plans: readonly SourcePlan[]): string {
  const names = plans.map((p) => p.name.replace(/[^\w.-]/g, '_')).join(',');
  return `<!-- policy-pool-sync plan source=${names} -->`;
}

/**
 * The plan for a pull-request comment or a CI step summary, at most MARKDOWN_LIMIT characters however large:
 * the marker, the closing line and a table of counts per source first; then, per source, its errors, its changes
 * grouped by action (each with its fields and code diff folded in `<details>`), and its warnings, folded too.
 * What does not fit is listed more briefly, and what still does not fit ends its list with "… and N more".
 */
export function renderMarkdown(plans: readonly SourcePlan[], context: MarkdownContext = {}): string {
  const deletions = summarize(plans).delete;
  const blocks = blockSummaryLine(plans);
  const head = [
    markerLine(plans),
    '## policy-pool-sync plan',
    '',
    ...contextLines(context),
    ...(deletions > 0 ? [`**⚠ ${count(deletions, 'deletion')}**`, ''] : []),
    ...(blocks === null ? [] : [`**${blockSummary(plans).changes > 0 ? '⛔' : '⏸'} ${escapeText(blocks)}**`, '']),
    ...closingLines(plans, 'below').flatMap((line) => [`**${line}**`, '']),
    ...countsTable(plans),
    '',
  ];
  const sections = plans.map(sourceListings);
  return fitToBudget({ head, sections, limit: MARKDOWN_LIMIT });
}

/** When and where the plan was made, for a reader of the comment: the time, and under GitHub Actions a link to the run. */
export interface MarkdownContext {
  /** ISO 8601. */
  time?: string;
  runUrl?: string;
}

function contextLines(context: MarkdownContext): string[] {
  const parts = [
    ...(context.time === undefined ? [] : [`Planned at ${escapeText(context.time)}`]),
    ...(context.runUrl === undefined ? [] : [`[workflow run](${context.runUrl.replace(/[()\s]/g, encodeURIComponent)})`]),
  ];
  return parts.length === 0 ? [] : [`${parts.join(' · ')}.`, ''];
}

function countsTable(plans: readonly SourcePlan[]): string[] {
  const row = (label: string, s: PlanSummary, status: string) =>
    `| ${label} | ${s.create} | ${s.update} | ${s.replace} | ${s.delete} | ${status} |`;
  const lines = ['| Source | Create | Update | Replace | Delete | Status |', '| --- | ---: | ---: | ---: | ---: | --- |'];
  for (const source of plans) {
    if (source.plan === null) lines.push(`| ${inlineCode(source.name)} | – | – | – | – | ${escapeText(noPlanLine(source).replace(/^No plan: /, 'no plan: '))} |`);
    else lines.push(row(inlineCode(source.name), summarize([source]), sourceStatus(source)));
  }
  if (plans.length > 1) lines.push(row('**Total**', summarize(plans), ''));
  return lines;
}

function sourceStatus(source: SourcePlan): string {
  const errors = sourceErrors(source).length;
  if (errors > 0) return count(errors, 'error');
  if ((source.plan?.changes.length ?? 0) > 0) return 'changes';
  const kept = source.plan?.keptUndeclared ?? 0;
  return kept > 0 ? `no changes; ${kept} undeclared kept` : 'in sync';
}

/** One source as lists the budget can shorten: errors, the change groups, warnings. */
function sourceListings(source: SourcePlan): { header: string[]; listings: Listing[] } {
  const { plan } = source;
  const revision = source.revision === null ? 'no revision' : `revision ${inlineCode(source.revision)}`;
  const header = [`### Source ${inlineCode(source.name)}`, '', `Organization ${inlineCode(source.organization)}, ${revision}.`, ''];
  if (plan === null) header.push(`**${noPlanLine(source)}** This replaces the plan shown here before, which is no longer current; the errors below say why.`, '');
  else if (plan.changes.length === 0 && noChangeLine(source) !== null) header.push(`${noChangeLine(source)}`, '');
  if (plan !== null && (plan.keptUndeclared ?? 0) > 0) header.push(keptLine(plan.keptUndeclared ?? 0), '');

  const listings: Listing[] = [];
  const errors = sourceErrors(source);
  if (errors.length > 0) {
    listings.push({ title: ['**Errors**', ''], items: errors.map((e) => ({ brief: `- ❌ ${escapeText(clip(e, 1000))}` })), footer: [''] });
  }
  const rollouts = plan?.rollouts ?? [];
  for (const action of ORDER) {
    const changes = (plan?.changes ?? []).filter((c) => c.action === action);
    if (changes.length === 0) continue;
    listings.push({
      title: [`#### ${GROUP[action]} (${changes.length})`, ''],
      items: changes.map((c) => ({ brief: briefLine(c, rollouts), full: () => fullItem(c, rollouts) })),
      footer: [''],
    });
  }
  if (rollouts.length > 0) {
    listings.push({ title: [`#### Rollouts (${rollouts.length})`, ''], items: rollouts.map((r) => ({ brief: `- ${escapeText(clip(rolloutLine(r), 1000))}` })), footer: [''] });
  }
  const tokens = plan?.tokens ?? [];
  if (tokens.length > 0) {
    listings.push({ title: [`#### Agent tokens (${tokens.length})`, ''], items: tokens.map((t) => ({ brief: `- ${escapeText(clip(tokenLine(t), 1000))}` })), footer: [''] });
  }
  const warnings = plan === null ? [] : planWarnings(plan);
  if (warnings.length > 0) {
    listings.push({
      title: [`<details><summary>⚠️ ${count(warnings.length, 'warning')}</summary>`, ''],
      items: warnings.map((w) => ({ brief: `- ${escapeText(clip(w, 1000))}` })),
      footer: ['', '</details>', ''],
    });
  }
  return { header, listings };
}

/** One line: the action, the resource, the reason and whom it blocks. */
function briefLine(change: Change, rollouts: readonly RolloutStatus[]): string {
  const id = change.id === null ? '' : ` (${inlineCode(change.id)})`;
  const block = visibleBlock(change, rollouts);
  const blocks = block === null ? '' : ` **${escapeText(block)}**`;
  return `- **${LABEL[change.action]}** ${change.resource} ${inlineCode(change.name)}${id}: ${escapeText(clip(change.reason, 500))}${blocks}${evidenceItems(change, rollouts).map((l) => `\n${l}`).join('')}`;
}

/** Under a change that tightens enforcement: its evidence, and the workspaces it would block, in bold. */
function evidenceItems(change: Change, rollouts: readonly RolloutStatus[]): string[] {
  if (change.evidence === undefined) return [];
  const blocking = blockLines(blockOf(change, rollouts));
  const perPolicy = policyLines(change.evidence);
  return [
    `  - ${escapeText(evidenceLine(change.evidence))}`, ...levelLines(change.evidence).map((line) => `  - ${escapeText(line)}`),
    ...(perPolicy === null ? [] : [`  - ${escapeText(perPolicy.heading)}`, ...perPolicy.lines.map((line) => `    - ${escapeText(clip(line, 1000))}`)]),
    ...blocking.map(({ line, now }) => `  - ${now ? '⛔' : '⏸'} **${escapeText(line)}**`),
  ];
}

/** The same line opening a `<details>` with each field's before and after, and the code diff. */
function fullItem(change: Change, rollouts: readonly RolloutStatus[]): string {
  const id = change.id === null ? '' : ` (<code>${escapeHtml(change.id)}</code>)`;
  const block = visibleBlock(change, rollouts);
  const blocks = block === null ? '' : ` <b>${escapeHtml(block)}</b>`;
  const summary = `<b>${escapeHtml(LABEL[change.action])}</b> ${change.resource} <code>${escapeHtml(change.name)}</code>${id}: ${escapeHtml(clip(change.reason, 500))}${blocks}`;
  const lines = [`- <details><summary>${summary}</summary>`, '', ...evidenceItems(change, rollouts)];
  for (const [name, field] of shownFields(change)) {
    if (name === 'code' && hasCodeDiff(change)) lines.push(`  - ${inlineCode(name)}: changed, diff below`);
    else if (change.action === 'create' || (field.before === null && change.action !== 'delete')) lines.push(`  - ${inlineCode(name)}: ${value(name, field.after)}`);
    else lines.push(`  - ${inlineCode(name)}: ${value(name, field.before)} → ${value(name, field.after)}`);
    if (name === 'content') lines.push(...contentItems(change));
    for (const line of wildcardLines(change, name)) lines.push(`    - ${escapeText(clip(line, 500))}`);
  }
  if (hasCodeDiff(change)) lines.push('', ...fencedBlock(cappedDiff(change), 'diff').map((l) => `  ${l}`));
  lines.push('', '  </details>');
  return lines.join('\n');
}

/** Under a set's content: the files it changed, as a nested list, when the run knows them (`contentFileLines`). */
function contentItems(change: Change): string[] {
  const held = change.resource === 'policy-set' ? heldBackLine(change.declared?.content?.held) : null;
  const heldItems = held === null ? [] : [`  - ⏸ ${escapeText(clip(held, 1000))}`];
  const listed = contentFileLines(change);
  if (listed === null) return heldItems;
  const items = listed.files.map(({ mark, path }) => `    - ${mark} ${inlineCode(clip(path, 300))}`);
  return [`  - ${escapeText(listed.heading)}:`, ...items, ...(listed.more > 0 ? [`    - … and ${listed.more} more`] : []), ...heldItems];
}

function value(name: string, v: unknown): string {
  return name === 'code' ? describeCode(v) : inlineCode(clip(formatValue(v), 300));
}

function cappedDiff(change: Change): string[] {
  const all = codeDiffLines(change);
  const shown = all.slice(0, MAX_DIFF_LINES).map((line) => clip(line, MAX_DIFF_LINE));
  if (all.length > shown.length) shown.push(`… ${all.length - shown.length} more lines (the text and JSON plans have the whole diff)`);
  return shown;
}
