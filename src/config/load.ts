import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { checkYaml, invalidFile, parseYaml } from '../yaml/index.js';
import { checkConfigRules } from './checks.js';
import { applyEnvOverrides } from './env.js';
import { withOwnSecrets } from './secrets.js';
import { toConfig, type RawConfig } from './to-config.js';
import type { Config } from './types.js';

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
  const parsed = parseYaml(text, file);
  if ('problems' in parsed) throw invalidFile('config', file, parsed.problems);
  const { doc } = parsed;
  const problems = [...checkYaml('config', doc), ...checkConfigRules(doc.value).map((p) => doc.problem(p.path, p.message))];
  if (problems.length > 0) throw invalidFile('config', file, problems);
  const overridden = applyEnvOverrides(toConfig(doc.value as RawConfig, cwd), env, cwd);
  if (overridden.problems.length > 0) throw invalidFile('config', file, overridden.problems);
  return withOwnSecrets(overridden.config);
}
