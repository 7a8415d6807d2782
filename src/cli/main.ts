import { existsSync } from 'node:fs';
import path from 'node:path';
import { configFromFlags, loadConfig } from '../config/index.js';
import type { Config, SourceConfig } from '../config/types.js';
import { NO_PARAMETERS } from '../config/parameter-allowance.js';
import { ownSecretSources } from '../config/secrets.js';
import { toEvidence } from '../config/to-config.js';
import { errorMessage, formatProblem, Interrupted, UsageError, ValidationError } from '../errors.js';
import { printable, printableLines } from '../output/printable.js';
import { createLogger, inCi, logFormat, stderrWriter } from '../logger.js';
import { TerminalLine } from '../progress.js';
import { packageVersion } from '../version.js';
import { parseCliArgs, USAGE, type CliArgs } from './args.js';
import { adviceForAction, inAction } from './action-advice.js';
import { destinations } from './destinations.js';
import { writeFindings } from './error-lines.js';
import { RedactedIo } from './redacted-io.js';
import { withoutApplyingSide } from './saved-run.js';

const DEFAULT_CONFIG = 'config/default.yaml';

/** Where a run of the command line writes, and the environment it reads. */
export interface ProcessIo {
  /** The plan and other results. */
  stdout: NodeJS.WriteStream;
  /** Logs and error messages. */
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** The whole command line: parses `argv`, runs the mode, reports any error on stderr; resolves with the exit code. */
export async function runCommandLine(argv: string[], raw: ProcessIo): Promise<number> {
  const io = new RedactedIo(raw);
  try {
    return await main(argv, io);
  } catch (error) {
    return report(error, io);
  }
}

/** Every mode writes through `io`, the one redactor's boundary, except the emulator, whose own token is its output. */
async function main(argv: string[], io: RedactedIo<NodeJS.WriteStream, NodeJS.WritableStream>): Promise<number> {
  const control = await import('./control-command.js');
  if (control.isControlCommand(argv[0])) return control.runControlCommand(argv, io);
  const args = parseCliArgs(argv);
  if (args.help) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (args.version) {
    io.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const terminal = (io.stderr as { isTTY?: boolean }).isTTY === true;
  const where = destinations(io.raw.stdout, io.raw.stderr);
  const oneShot = args.mode !== 'daemon' && args.mode !== 'emulator';
  // The process's own stderr: a one-shot run's lines written before it goes on, a server's as the reader takes them.
  const sink = io.raw.stderr === process.stderr ? stderrWriter({ sync: oneShot }) : io.raw.stderr;
  // On a terminal, a one-shot pass keeps one progress line under the log lines.
  const line = terminal && (args.mode === 'reconcile' || args.mode === 'dry-run') ? new TerminalLine(sink) : null;
  // A server's log (the daemon's, the emulator's) goes to a collector: JSON off a terminal, in CI too. A one-shot
  // run's is read beside its plan: readable in CI, and wherever both go to one place (`2>&1 | less`).
  const format = logFormat(io.env['LOG_FORMAT'], terminal || (oneShot && (inCi(io.env) || where.shared)));
  const logger = createLogger({
    level: io.env['LOG_LEVEL'] || 'info',
    format,
    stream: line ?? sink,
    color: terminal && !io.env['NO_COLOR'],
    redact: io.redact,
  });
  // Each mode loads its modules when chosen: --validate needs neither the HTTP client nor the daemon nor the emulator.
  if (args.mode === 'show') return (await import('./show.js')).runShow(args, io.stdout, io.env);
  if (args.mode === 'emulator') return (await import('./emulator-command.js')).runEmulator(args, io.raw.stdout, logger);
  const config = await resolveConfig(args, io.env);
  io.learn(config);
  if (args.mode === 'daemon') return (await import('../daemon/index.js')).runDaemon({ config, logger, env: io.env, noCache: args.noCache, redact: io.redact });
  const oneShotIo = { stdout: io.stdout, env: io.env, logger, terminal: line, stderr: line ?? sink, redact: io.redact, stdoutShown: where.stdoutShown, logFormat: format };
  if (args.mode === 'export') return (await import('./export-command.js')).runExport(args, config, oneShotIo);
  if (args.mode === 'validate') return (await import('./validate.js')).runValidate(args, config, oneShotIo);
  return (await import('./one-shot.js')).runOnce(args, config, oneShotIo);
}

/**
 * Flags alone (`--source-dir`, with `--organization` except for `--validate`) need no config file; otherwise the file
 * is read and validated. The API URL comes from `--api-url`, then `API_BASE_URL` (applied by the loader), then
 * `api.url`; the state dir from `--state-dir`, then `STATE_DIR`, then `state-dir`. `--allow-empty`, `--adopt` and
 * `--max-agent-pools` apply to every source, as do `--parameter-env` (added to each source's patterns) and
 * `--parameter-files` (in place of its folder).
 */
async function resolveConfig(args: CliArgs, env: NodeJS.ProcessEnv): Promise<Config> {
  const read = await readConfig(args, env);
  const config = args.stateDir === null ? read : { ...read, stateDir: path.resolve(args.stateDir) };
  return {
    ...config,
    api: args.nativeKind === null ? config.api : { ...config.api, nativeKind: args.nativeKind },
    sources: config.sources.map((source) => ({
      ...source,
      allowEmpty: source.allowEmpty || args.allowEmpty,
      adopt: source.adopt || args.adopt,
      ...(args.strictImports ? { strictImports: true } : {}),
      ...(args.maxAgentPools === null ? {} : { maxAgentPools: args.maxAgentPools }),
      ...withParameterFlags(source, args, config),
      ...(args.tokenDir === null ? {} : { tokenDir: path.resolve(args.tokenDir) }),
      ...withEvidenceFlags(source.evidence, args.evidence),
    })),
  };
}

function withParameterFlags(source: SourceConfig, args: CliArgs, config: Config): Pick<SourceConfig, 'parameters'> {
  if (args.parameterEnv.length === 0 && args.parameterFiles === null) return {};
  const { env, files } = source.parameters ?? NO_PARAMETERS;
  const parameterFiles = args.parameterFiles === null ? files : path.resolve(args.parameterFiles);
  return { parameters: { env: [...new Set([...env, ...args.parameterEnv])], files: parameterFiles, reserved: ownSecretSources(config) } };
}

async function readConfig(args: CliArgs, env: NodeJS.ProcessEnv): Promise<Config> {
  checkApiUrl(args.apiUrl);
  if (args.config === null && args.mode === 'export') {
    return configFromFlags({ sourceDir: args.exportDir ?? '.', organization: args.organization ?? '', apiUrl: args.apiUrl }, env);
  }
  if (args.config === null && args.sourceDir !== null) {
    // --validate makes no API call, so the organization is not needed there.
    return configFromFlags({ sourceDir: args.sourceDir, organization: args.organization ?? '', apiUrl: args.apiUrl, name: args.source }, env);
  }
  // A saved plan records its API and sources, but never supplies them: the applying side names both.
  if (args.config === null && args.mode === 'reconcile' && args.plan !== null) throw await withoutApplyingSide(args.plan, args.apiUrl ?? env['API_BASE_URL'] ?? null);
  const file = args.config ?? DEFAULT_CONFIG;
  if (!existsSync(file)) {
    throw new UsageError(`config file ${file} not found; pass --config FILE, or --source-dir DIR --organization NAME`);
  }
  const config = await loadConfig(file, env);
  return args.apiUrl === null ? config : { ...config, api: { ...config.api, url: args.apiUrl } };
}

/** `--api-url` is an http(s) URL with its scheme (or `embedded`); the message names the flag. */
function checkApiUrl(apiUrl: string | null): void {
  if (apiUrl === null || apiUrl === 'embedded' || /^https?:\/\/[^\s/]+/.test(apiUrl)) return;
  const example = /^[\w.-]+(:\d+)?(\/|$)/.test(apiUrl) ? `: https://${apiUrl} or http://${apiUrl}` : ', e.g. https://policies.example.com/api/v2';
  throw new UsageError(`--api-url "${apiUrl}" is not an http(s) URL: give it with its scheme${example}`);
}

/**
 * An error's message as the terminal may show it. The messages this tool composes on several lines (a usage error, a
 * plain error) keep their lines, each made printable; any other error may carry text from the API, git or the lease
 * store, whose line breaks would forge lines of the tool's own: it is shown as one printable line.
 */
function shownError(error: unknown): string {
  const composed = error instanceof UsageError || (error instanceof Error && error.constructor === Error);
  return composed ? printableLines(errorMessage(error)) : printable(errorMessage(error));
}

function report(thrown: unknown, io: { stderr: NodeJS.WritableStream; env: NodeJS.ProcessEnv }): number {
  const error = inAction(io.env) && thrown instanceof UsageError ? new UsageError(adviceForAction(thrown.message)) : thrown;
  if (error instanceof Interrupted) {
    io.stderr.write(`${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof ValidationError) {
    io.stderr.write(`error: ${printableLines(error.message)}\n${error.problems.map((p) => `  ${printable(formatProblem(p))}\n`).join('')}`);
    const findings = error.problems.map((p) => ({ level: 'error' as const, message: p.message, file: p.file, ...(p.line === undefined ? {} : { line: p.line }) }));
    writeFindings(findings, io.stderr, io.env, { readable: false });
  } else {
    io.stderr.write(`error: ${shownError(error)}\n`);
    if (!(error instanceof UsageError) && io.env['LOG_LEVEL'] === 'debug' && error instanceof Error) io.stderr.write(`${error.stack ?? ''}\n`);
    writeFindings([{ level: 'error', message: errorMessage(error) }], io.stderr, io.env, { readable: false });
  }
  return 1;
}

/** A source's `evidence:` with the run's --evidence-window, --evidence-max-requests and --evidence-max-seconds over it. */
function withEvidenceFlags(given: SourceConfig['evidence'], flags: CliArgs['evidence']): { evidence?: SourceConfig['evidence'] } {
  const maxSeconds = flags.maxSeconds ?? null;
  if (flags.windowDays === null && flags.maxRequests === null && maxSeconds === null) return given === undefined ? {} : { evidence: given };
  const base = given ?? toEvidence({});
  const seconds = maxSeconds ?? base.maxSeconds;
  return {
    evidence: {
      windowMs: flags.windowDays === null ? base.windowMs : flags.windowDays * 86_400_000, maxRequests: flags.maxRequests ?? base.maxRequests,
      ...(seconds === undefined ? {} : { maxSeconds: seconds }),
    },
  };
}
