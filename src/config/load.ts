import { readFile } from 'node:fs/promises';
import { UsageError, ValidationError, type SourceProblem } from '../errors.js';
import { checkConfigRules } from './checks.js';
import { toConfig, type RawConfig } from './to-config.js';
import { applyEnvOverrides } from './env.js';
import { compileConfigSchema } from './schema.js';
import type { Config } from './types.js';
import { parseLocatedYaml } from './yaml-location.js';

export interface LoadConfigOptions {
  /** Folder that relative paths (source path, state-dir, token-file) resolve against. @default process.cwd() */
  cwd?: string;
}

/** Reads, validates (every problem at once), fills defaults and applies env overrides. Throws ValidationError or UsageError. */
export async function loadConfig(file: string, env: NodeJS.ProcessEnv, options: LoadConfigOptions = {}): Promise<Config> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new UsageError(`cannot read config file ${file}: ${reason}; pass --config FILE, or --source-dir and --organization`);
  }
  return parseConfig(text, file, env, options);
}

/** `loadConfig` on text already read; `file` is only used in problems. */
export async function parseConfig(text: string, file: string, env: NodeJS.ProcessEnv, options: LoadConfigOptions = {}): Promise<Config> {
  const cwd = options.cwd ?? process.cwd();
  const yaml = parseLocatedYaml(text);
  if (yaml.errors.length > 0) {
    throw invalid(file, yaml.errors.map((e) => ({ file, line: e.line, message: `YAML syntax: ${e.message}` })));
  }
  const check = await compileConfigSchema();
  const problems: SourceProblem[] = [];
  for (const v of check(yaml.value)) {
    const line = v.unknownKey ? yaml.keyLineOf(v.path) : yaml.lineOf(v.path);
    problems.push(located(file, line, v.path, v.message));
  }
  for (const p of checkConfigRules(yaml.value)) problems.push(located(file, yaml.lineOf(p.path), p.path, p.message));
  if (problems.length > 0) throw invalid(file, problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0)));
  const overridden = applyEnvOverrides(toConfig(yaml.value as RawConfig, cwd), env, cwd);
  if (overridden.problems.length > 0) throw invalid(file, overridden.problems);
  return overridden.config;
}

function located(file: string, line: number | undefined, path: (string | number)[], message: string): SourceProblem {
  return { file, ...(line === undefined ? {} : { line }), message: `${keyPath(path)}: ${message}` };
}

/** `sources[0].max-deletes`; the document itself is `(root)`. */
export function keyPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(root)';
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

function invalid(file: string, problems: SourceProblem[]): ValidationError {
  const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
  return new ValidationError(`config ${file} is invalid (${count})`, problems);
}
