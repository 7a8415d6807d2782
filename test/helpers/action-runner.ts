/**
 * Runs the shell steps of a composite GitHub Action the way a runner does: each `run:` as a file under
 * `bash --noprofile --norc -eo pipefail`, with its `env:` expressions filled in, `GITHUB_OUTPUT` read back after each
 * step, and one `GITHUB_STEP_SUMMARY` file for the job. It knows only the expressions the project's action uses and
 * fails on any other, so an expression it cannot check never passes silently.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from './repo-root.js';

export interface ActionInput {
  description?: string;
  default?: string;
  required?: boolean;
}

export interface ActionStep {
  name?: string;
  id?: string;
  if?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
  uses?: string;
}

export interface ActionFile {
  inputs: Record<string, ActionInput>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

export async function readAction(): Promise<ActionFile> {
  return parse(await readFile(join(REPO_ROOT, 'action.yml'), 'utf8')) as ActionFile;
}

export interface RunOptions {
  inputs: Record<string, string>;
  /** The workspace: the working directory of every step. */
  cwd: string;
  /** `github.event.pull_request.number`; absent for a push. */
  pullRequest?: number;
  /** Runner variables such as GITHUB_API_URL and GITHUB_REPOSITORY. */
  env?: Record<string, string>;
  /** `github.token`. */
  githubToken?: string;
}

export interface StepRun {
  name: string;
  skipped: boolean;
  code: number;
  stdout: string;
  stderr: string;
  /** How long the step ran, in ms. */
  ms: number;
}

export interface ActionRun {
  steps: StepRun[];
  /** The action's outputs, resolved from its steps' outputs. */
  outputs: Record<string, string>;
  summary: string;
  /** Whether every step that ran succeeded. */
  ok: boolean;
}

export async function runAction(action: ActionFile, options: RunOptions): Promise<ActionRun> {
  // RUNNER_TEMP: the runner's own temp folder, removed once the steps have run (as a hosted runner's is, at the job's end).
  const temp = await mkdtemp(join(tmpdir(), 'pps-runner-'));
  try {
    return await runSteps(action, options, temp);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

async function runSteps(action: ActionFile, options: RunOptions, temp: string): Promise<ActionRun> {
  const summaryFile = join(temp, 'step-summary.md');
  await writeFile(summaryFile, '');
  const stepOutputs: Record<string, Record<string, string>> = {};
  const steps: StepRun[] = [];
  let failed = false;
  for (const [index, step] of action.runs.steps.entries()) {
    const name = step.name ?? `step ${index}`;
    if (step.uses !== undefined) throw new Error(`${name}: the fake runner cannot run "uses" steps`);
    if (step.shell !== 'bash' || step.run === undefined) throw new Error(`${name}: expected a bash run step`);
    const context = { action, options, stepOutputs };
    if (!condition(step.if, failed, context)) {
      steps.push({ name, skipped: true, code: 0, stdout: '', stderr: '', ms: 0 });
      continue;
    }
    const outputFile = join(temp, `output-${index}`);
    await writeFile(outputFile, '');
    const script = join(temp, `step-${index}.sh`);
    await writeFile(script, step.run);
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? temp,
      NO_COLOR: '1',
      GITHUB_ACTIONS: 'true',
      GITHUB_RUN_ID: '4242',
      GITHUB_JOB: 'plan',
      RUNNER_TEMP: temp,
      GITHUB_WORKSPACE: options.cwd,
      ...options.env,
      GITHUB_STEP_SUMMARY: summaryFile,
      GITHUB_OUTPUT: outputFile,
    };
    for (const [key, value] of Object.entries(step.env ?? {})) env[key] = expand(value, context);
    const started = performance.now();
    const result = await bash(script, options.cwd, env);
    steps.push({ name, skipped: false, ...result, ms: performance.now() - started });
    if (step.id !== undefined) stepOutputs[step.id] = parseOutputs(await readFile(outputFile, 'utf8'));
    if (result.code !== 0) failed = true;
  }
  const context = { action, options, stepOutputs };
  const outputs = Object.fromEntries(Object.entries(action.outputs).map(([key, output]) => [key, expand(output.value, context)]));
  return { steps, outputs, summary: await readFile(summaryFile, 'utf8'), ok: !failed };
}

interface Context {
  action: ActionFile;
  options: RunOptions;
  stepOutputs: Record<string, Record<string, string>>;
}

/** Fills in every `${{ ... }}` of a value. */
function expand(value: string, context: Context): string {
  return value.replace(/\$\{\{\s*(.+?)\s*\}\}/g, (_, expression: string) => evaluate(expression, context));
}

function evaluate(expression: string, context: Context): string {
  const input = /^inputs\.([\w-]+)$/.exec(expression);
  if (input !== null) {
    const name = input[1]!;
    const declared = context.action.inputs[name];
    if (declared === undefined) throw new Error(`the action reads an undeclared input "${name}"`);
    return context.options.inputs[name] ?? expand(declared.default ?? '', context);
  }
  const output = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expression);
  if (output !== null) return context.stepOutputs[output[1]!]?.[output[2]!] ?? '';
  switch (expression) {
    case 'github.action_path':
      return REPO_ROOT;
    case 'github.token':
      return context.options.githubToken ?? '';
    case 'github.event.pull_request.number':
      return context.options.pullRequest === undefined ? '' : String(context.options.pullRequest);
    default:
      throw new Error(`the fake runner does not know the expression "${expression}"`);
  }
}

/** A step's `if:`; without one, the step runs only while every step before it succeeded. */
function condition(text: string | undefined, failed: boolean, context: Context): boolean {
  if (text === undefined) return !failed;
  const body = /^\$\{\{\s*(.+?)\s*\}\}$/.exec(text.trim())?.[1] ?? text.trim();
  return body.split('&&').every((part) => term(part.trim(), failed, context));
}

function term(part: string, failed: boolean, context: Context): boolean {
  if (part === '!cancelled()') return true;
  if (part === 'always()') return true;
  if (part === 'success()') return !failed;
  if (part === 'failure()') return failed;
  const compare = /^([\w.-]+)\s*(==|!=)\s*'([^']*)'$/.exec(part);
  if (compare !== null) {
    const value = evaluate(compare[1]!, context);
    return compare[2] === '==' ? value === compare[3] : value !== compare[3];
  }
  throw new Error(`the fake runner does not know the condition "${part}"`);
}

/** `name=value` lines, and `name<<DELIMITER` blocks, as a runner reads GITHUB_OUTPUT. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const block = /^([\w-]+)<<(.+)$/.exec(line);
    if (block !== null) {
      const end = lines.indexOf(block[2]!, i + 1);
      outputs[block[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) outputs[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return outputs;
}

/** A script under bash as GitHub runs `shell: bash`; also used for README and example snippets. */
export function bash(script: string, cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
