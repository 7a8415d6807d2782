#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { parseCliArgs, USAGE, type CliArgs } from './cli/args.js';
import { runEmulator } from './cli/emulator-command.js';
import { runOnce, runValidate } from './cli/one-shot.js';
import { configFromFlags, loadConfig } from './config/index.js';
import type { Config } from './config/types.js';
import { runDaemon } from './daemon/index.js';
import { errorMessage, formatProblem, UsageError, ValidationError } from './errors.js';
import { createLogger } from './logger.js';

const DEFAULT_CONFIG = 'config/default.yaml';

async function main(argv: string[]): Promise<number> {
  const args = parseCliArgs(argv);
  if (args.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (args.version) {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  const logger = createLogger();
  if (args.mode === 'emulator') return runEmulator(args, process.stdout, logger);
  const config = await resolveConfig(args, process.env);
  if (args.mode === 'daemon') return runDaemon({ config, logger, env: process.env });
  const io = { stdout: process.stdout, env: process.env, logger };
  return args.mode === 'validate' ? runValidate(args, config, io) : runOnce(args, config, io);
}

/**
 * Flags alone (`--source-dir` and `--organization`) need no config file; otherwise the file is read and validated.
 * The API URL comes from `--api-url`, then `API_BASE_URL` (applied by the loader), then `api.url`.
 */
async function resolveConfig(args: CliArgs, env: NodeJS.ProcessEnv): Promise<Config> {
  if (args.config === null && args.sourceDir !== null && args.organization !== null) {
    return configFromFlags({ sourceDir: args.sourceDir, organization: args.organization, apiUrl: args.apiUrl }, env);
  }
  const file = args.config ?? DEFAULT_CONFIG;
  if (!existsSync(file)) {
    throw new UsageError(`config file ${file} not found; pass --config FILE, or --source-dir DIR --organization NAME`);
  }
  const config = await loadConfig(file, env);
  return args.apiUrl === null ? config : { ...config, api: { ...config.api, url: args.apiUrl } };
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function report(error: unknown): number {
  if (error instanceof ValidationError) {
    process.stderr.write(`error: ${error.message}\n${error.problems.map((p) => `  ${formatProblem(p)}\n`).join('')}`);
  } else if (error instanceof UsageError) {
    process.stderr.write(`error: ${error.message}\n`);
  } else {
    process.stderr.write(`error: ${errorMessage(error)}\n`);
    if (process.env['LOG_LEVEL'] === 'debug' && error instanceof Error) process.stderr.write(`${error.stack ?? ''}\n`);
  }
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = report(error);
  },
);
