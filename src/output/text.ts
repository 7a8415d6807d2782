import type { Change, ChangeAction, FieldChange, SourcePlan } from '../plan/types.js';
import { closingLines, codeDiffLines, contentFileLines, describeCode, formatValue, hasCodeDiff, noChangeLine, noPlanLine, pushAll, shownFields, sourceErrors, wildcardLines } from './describe.js';
import { evidenceLine, heldBackLine, levelLines, policyLines, rolloutLine } from './evidence-words.js';
import { blockLines, blockOf, planWarnings } from './enforcement-words.js';
import type { RolloutStatus } from '../plan/rollout.js';
import { tokenLine } from '../plan/tokens.js';
import { printable, printableCode } from './printable.js';

export interface TextOptions {
  /** ANSI colour; the caller decides (see `shouldColor`). */
  color: boolean;
}

function header(source: SourcePlan): string {
  const revision = source.revision === null ? 'no revision' : `revision ${printable(source.revision)}`;
  return `Source "${printable(source.name)}": organization "${printable(source.organization)}", ${revision}`;
}

function renderSource(source: SourcePlan, p: Palette): string[] {
  const { plan } = source;
  const lines = [p.bold(header(source)), ''];
  if (plan === null) lines.push(`  ${p.red(noPlanLine(source))}`, '');
  else if (plan.changes.length === 0 && noChangeLine(source) !== null) lines.push(`  ${noChangeLine(source)}`, '');
  for (const change of plan?.changes ?? []) {
    pushAll(lines, renderChange(change, plan?.rollouts ?? [], p));
    lines.push('');
  }
  const rollouts = plan?.rollouts ?? [];
  if (rollouts.length > 0) {
    lines.push(p.bold('Rollouts:'));
    for (const rollout of rollouts) lines.push(`  - ${printable(rolloutLine(rollout))}`);
    lines.push('');
  }
  const tokens = plan?.tokens ?? [];
  if (tokens.length > 0) {
    lines.push(p.bold('Agent tokens:'));
    for (const token of tokens) lines.push(`  - ${printable(tokenLine(token))}`);
    lines.push('');
  }
  const warnings = plan === null ? [] : planWarnings(plan);
  if (warnings.length > 0) {
    lines.push(p.yellow('Warnings:'));
    for (const warning of warnings) lines.push(`  - ${printable(warning)}`);
    lines.push('');
  }
  const errors = sourceErrors(source);
  if (errors.length > 0) {
    lines.push(p.red('Errors:'));
    for (const error of errors) lines.push(`  - ${printable(error)}`);
    lines.push('');
  }
  return lines;
}

/** The plan in Terraform's vocabulary and layout, ending with the `Plan: ...` line. */
export function renderText(plans: readonly SourcePlan[], options: TextOptions): string {
  const p = palette(options.color);
  const lines: string[] = [];
  const actions = new Set<ChangeAction>(plans.flatMap((s) => (s.plan?.changes ?? []).map((c) => c.action)));
  if (actions.size > 0) {
    lines.push('Resource actions are indicated with the following symbols:', ...legend(actions, p), '');
  }
  for (const source of plans) pushAll(lines, renderSource(source, p));
  for (const line of closingLines(plans)) lines.push(p.bold(line));
  return `${lines.join('\n')}\n`;
}

// One change, Terraform style.

const SYMBOL: Record<ChangeAction, string> = { create: '  +', update: '  ~', replace: '-/+', delete: '  -' };
const WILL: Record<ChangeAction, string> = {
  create: 'will be created',
  update: 'will be updated in-place',
  replace: 'must be replaced',
  delete: 'will be destroyed',
};

function paintSymbol(action: ChangeAction, p: Palette): string {
  const symbol = SYMBOL[action];
  if (action === 'create') return p.green(symbol);
  if (action === 'update') return p.yellow(symbol);
  if (action === 'delete') return p.red(symbol);
  return p.magenta(symbol);
}

/** The legend lines, Terraform style, for the actions present. */
function legend(actions: ReadonlySet<ChangeAction>, p: Palette): string[] {
  const words: Record<ChangeAction, string> = { create: 'create', update: 'update in-place', replace: 'replace', delete: 'delete' };
  const order: ChangeAction[] = ['create', 'update', 'replace', 'delete'];
  return order.filter((a) => actions.has(a)).map((a) => `${paintSymbol(a, p)} ${words[a]}`);
}

function fieldSymbol(action: ChangeAction, field: FieldChange, p: Palette): string {
  if (action === 'delete') return p.red('-');
  if (action === 'create' || field.before === null) return p.green('+');
  if (field.after === null) return p.red('-');
  return p.yellow('~');
}

function fieldValue(name: string, action: ChangeAction, field: FieldChange): string {
  const show = name === 'code' ? describeCode : (value: unknown) => printable(formatValue(value));
  if (action === 'delete') return `${show(field.before)} -> null`;
  if (action === 'create' || field.before === null) return show(field.after);
  const arrow = `${show(field.before)} -> ${show(field.after)}`;
  return name === 'kind' && action === 'replace' ? `${arrow} # forces replacement` : arrow;
}

function diffLine(line: string, p: Palette): string {
  if (line.startsWith('+')) return p.green(line);
  if (line.startsWith('-')) return p.red(line);
  if (line.startsWith('@@')) return p.cyan(line);
  return line;
}

/** One change as a Terraform-like block: a comment with the reason, the resource heading, its fields, a code diff. */
function renderChange(change: Change, rollouts: readonly RolloutStatus[], p: Palette): string[] {
  const shown = printable(change.name);
  const lines = [
    p.bold(`  # ${change.resource} "${shown}" ${WILL[change.action]}`) + ` (${printable(change.reason)})`,
    `${paintSymbol(change.action, p)} resource "${change.resource}" "${shown}" {`,
  ];
  const entries = shownFields(change).map(([key, field]): [string, FieldChange, string] => [printable(key), field, key]);
  const width = Math.max(change.id === null ? 0 : 2, ...entries.map(([name]) => name.length));
  if (change.id !== null) lines.push(`        ${'id'.padEnd(width)} = ${printable(formatValue(change.id))}`);
  for (const [name, field, key] of entries) {
    if (name === 'code' && hasCodeDiff(change)) {
      lines.push(`      ${p.yellow('~')} code:`);
      for (const line of codeDiffLines(change)) lines.push(`          ${diffLine(printableCode(line), p)}`);
      continue;
    }
    lines.push(`      ${fieldSymbol(change.action, field, p)} ${name.padEnd(width)} = ${fieldValue(name, change.action, field)}`);
    if (name === 'content') pushAll(lines, contentLines(change, p));
    for (const line of wildcardLines(change, key)) lines.push(`          # ${printable(line)}`);
  }
  if (change.evidence !== undefined) {
    lines.push(`        # ${printable(evidenceLine(change.evidence))}`);
    for (const line of levelLines(change.evidence)) lines.push(`        # ${printable(line)}`);
    const perPolicy = policyLines(change.evidence);
    if (perPolicy !== null) {
      lines.push(`        # ${printable(perPolicy.heading)}`);
      for (const line of perPolicy.lines) lines.push(`        #   ${printable(line)}`);
    }
    for (const { line, now } of blockLines(blockOf(change, rollouts))) lines.push(now ? p.red(`        # ! ${printable(line)}`) : p.yellow(`        # ${printable(line)}`));
  }
  lines.push('    }');
  return lines;
}

/** Under a set's content: the files it changed, when the run knows them (`contentFileLines`). */
function contentLines(change: Change, p: Palette): string[] {
  const held = change.resource === 'policy-set' ? heldBackLine(change.declared?.content?.held) : null;
  const heldLines = held === null ? [] : [`          # ${printable(held)}`];
  const listed = contentFileLines(change);
  if (listed === null) return heldLines;
  const paint = { '+': p.green, '~': p.yellow, '-': p.red } as const;
  const lines = [`          # ${listed.heading}:`];
  for (const { mark, path } of listed.files) lines.push(`          ${paint[mark](mark)} ${printable(path)}`);
  if (listed.more > 0) lines.push(`          … and ${listed.more} more`);
  return [...lines, ...heldLines];
}

// Colour.

/** ANSI colour for the text plan; identity functions when colour is off. */
interface Palette {
  green(text: string): string;
  yellow(text: string): string;
  red(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
  bold(text: string): string;
}

function ansi(code: number, enabled: boolean): (text: string) => string {
  return (text) => (enabled && text !== '' ? `\u001b[${code}m${text}\u001b[0m` : text);
}

function palette(color: boolean): Palette {
  return {
    green: ansi(32, color),
    yellow: ansi(33, color),
    red: ansi(31, color),
    cyan: ansi(36, color),
    magenta: ansi(35, color),
    bold: ansi(1, color),
  };
}

/**
 * Colour only on a terminal, never with `NO_COLOR` (any non-empty value, https://no-color.org) or
 * `TERM=dumb`. `FORCE_COLOR` (non-empty, not `0`) turns it on for terminals that do not say they are.
 */
export function shouldColor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): boolean {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '' && force !== '0') return true;
  if (env['TERM'] === 'dumb') return false;
  return stream.isTTY === true;
}
