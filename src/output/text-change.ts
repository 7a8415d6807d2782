import type { Change, ChangeAction, FieldChange } from '../plan/types.js';
import { codeDiffLines, hasCodeDiff } from './code-diff.js';
import type { Palette } from './color.js';
import { describeCode, formatValue } from './values.js';

const SYMBOL: Record<ChangeAction, string> = { create: '  +', update: '  ~', replace: '-/+', delete: '  -' };
const WILL: Record<ChangeAction, string> = {
  create: 'will be created',
  update: 'will be updated in-place',
  replace: 'must be replaced',
  delete: 'will be destroyed',
};

export function paintSymbol(action: ChangeAction, p: Palette): string {
  const symbol = SYMBOL[action];
  if (action === 'create') return p.green(symbol);
  if (action === 'update') return p.yellow(symbol);
  if (action === 'delete') return p.red(symbol);
  return p.magenta(symbol);
}

/** The legend lines, Terraform style, for the actions present. */
export function legend(actions: ReadonlySet<ChangeAction>, p: Palette): string[] {
  const words: Record<ChangeAction, string> = { create: 'create', update: 'update in-place', replace: 'replace', delete: 'delete' };
  const order: ChangeAction[] = ['create', 'update', 'replace', 'delete'];
  return order.filter((a) => actions.has(a)).map((a) => `${paintSymbol(a, p)} ${words[a]}`);
}

function fieldSymbol(action: ChangeAction, field: FieldChange, p: Palette): string {
  if (action === 'create' || field.before === null) return p.green('+');
  if (action === 'delete' || field.after === null) return p.red('-');
  return p.yellow('~');
}

function fieldValue(name: string, action: ChangeAction, field: FieldChange): string {
  const show = name === 'code' ? describeCode : formatValue;
  if (action === 'create' || field.before === null) return show(field.after);
  if (action === 'delete') return `${show(field.before)} -> null`;
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
export function renderChange(change: Change, p: Palette): string[] {
  const lines = [
    p.bold(`  # ${change.resource} "${change.name}" ${WILL[change.action]}`) + ` (${change.reason})`,
    `${paintSymbol(change.action, p)} resource "${change.resource}" "${change.name}" {`,
  ];
  const entries = Object.entries(change.fields);
  const width = Math.max(change.id === null ? 0 : 2, ...entries.map(([name]) => name.length));
  if (change.id !== null) lines.push(`        ${'id'.padEnd(width)} = ${formatValue(change.id)}`);
  for (const [name, field] of entries) {
    if (name === 'code' && hasCodeDiff(change)) {
      lines.push(`      ${p.yellow('~')} code:`);
      for (const line of codeDiffLines(change)) lines.push(`          ${diffLine(line, p)}`);
      continue;
    }
    lines.push(`      ${fieldSymbol(change.action, field, p)} ${name.padEnd(width)} = ${fieldValue(name, change.action, field)}`);
  }
  lines.push('    }');
  return lines;
}
