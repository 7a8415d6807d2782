import { isAbsolute, join, relative } from 'node:path';
import type { SourcePlan } from '../plan/types.js';
import { printable, printableLines } from '../output/printable.js';

/** Where error lines go: stderr, through the progress line on a terminal. */
export interface LineSink {
  write(text: string): unknown;
}

export interface Finding {
  level: 'error' | 'warning';
  message: string;
  /** Path from the working directory, when the finding is about a file. */
  file?: string;
  line?: number;
}

/** Under GitHub Actions each error and warning is also a workflow command, shown as an annotation on the pull request. */
export function inGitHubActions(env: NodeJS.ProcessEnv): boolean {
  return env['GITHUB_ACTIONS'] === 'true';
}

/**
 * Each error as one readable line on stderr, whatever `--output` is, so that a CI log shows it; under GitHub Actions
 * each error and warning also as an annotation (`::error file=…,line=…::…`).
 */
export function writeFindings(findings: readonly Finding[], sink: LineSink, env: NodeJS.ProcessEnv, options: { readable?: boolean } = {}): void {
  const actions = inGitHubActions(env);
  let text = '';
  for (const f of findings) {
    const where = f.file === undefined ? '' : `${f.file}${f.line === undefined ? '' : `:${f.line}`}: `;
    if (f.level === 'error' && options.readable !== false) text += `error: ${printable(`${where}${oneLine(f.message)}`)}\n`;
    if (actions) text += workflowCommand(f);
  }
  if (text !== '') sink.write(text);
}

/**
 * The errors and warnings of each source's plan; a declared repo's problems (`file:line: message`), and the plan's
 * that name a declared file (a name in it that matches nothing), name their file and line.
 */
export function planFindings(plans: readonly SourcePlan[], dirs: ReadonlyMap<string, string>): Finding[] {
  const findings: Finding[] = [];
  for (const plan of plans) {
    const prefix = plans.length > 1 ? `source "${plan.name}": ` : '';
    const dir = dirs.get(plan.name);
    const errors = plan.plan === null ? plan.errors : plan.plan.errors;
    const declaredOnly = plan.plan === null && plan.unreadable === 'declared';
    const located = (text: string) => (dir === undefined ? null : declaredOnly ? fileProblem(text, dir) : declaredFileProblem(text, dir));
    for (const error of errors) {
      const problem = located(error);
      findings.push(problem === null ? { level: 'error', message: `${prefix}${error}` } : { level: 'error', ...problem });
    }
    for (const warning of plan.plan?.warnings ?? []) {
      const problem = located(warning);
      findings.push(problem === null ? { level: 'warning', message: `${prefix}${warning}` } : { level: 'warning', ...problem });
    }
  }
  return findings;
}

/**
 * `file:line: message` of a declared repo's problem, its file relative to the working directory when under it (as
 * annotations want it), else absolute: never a climb of `../../`.
 */
export function fileProblem(text: string, dir: string): Pick<Finding, 'file' | 'line' | 'message'> | null {
  const match = /^([^\s:][^:]*?)(?::(\d+))?: (.+)$/s.exec(text);
  if (match === null || match[1]!.includes(' ')) return null;
  const file = isAbsolute(match[1]!) ? match[1]! : join(dir, match[1]!);
  const shown = relative(process.cwd(), file);
  const inside = shown !== '' && !shown.startsWith('..') && !isAbsolute(shown);
  return { file: inside ? shown : shown === '' ? '.' : file, ...(match[2] === undefined ? {} : { line: Number(match[2]) }), message: match[3]! };
}

/** A plan's error or warning that begins with a declared file (`agent-pools/p.yaml:2: …`); not `stale: …` and the like. */
function declaredFileProblem(text: string, dir: string): Pick<Finding, 'file' | 'line' | 'message'> | null {
  const head = /^([^\s:]+\.(?:ya?ml|native|sentinel|rego|hcl))(?::\d+)?: /.exec(text);
  return head === null ? null : fileProblem(text, dir);
}

function workflowCommand(f: Finding): string {
  const properties = [
    ...(f.file === undefined ? [] : [`file=${escapeProperty(f.file)}`]),
    ...(f.line === undefined ? [] : [`line=${f.line}`]),
  ];
  return `::${f.level}${properties.length === 0 ? '' : ` ${properties.join(',')}`}::${escapeData(printableLines(f.message))}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/** GitHub's escaping of a workflow command's message. */
function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
