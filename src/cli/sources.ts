import type { Redact } from '../redact.js';
import type { Config, SourceConfig } from '../config/types.js';
import { UsageError } from '../errors.js';
import type { LogFormat, Logger } from '../logger.js';
import type { TerminalLine } from '../progress.js';
import type { CliArgs } from './args.js';
import type { LineSink } from './error-lines.js';

/** What a one-shot mode writes to and reads. */
export interface CliIo {
  stdout: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Where each error is also written as one line (stderr); none in library use. */
  stderr?: LineSink;
  /** On a terminal: the progress line under the logs. */
  terminal?: TerminalLine | null;
  /** The one redactor, for what is written elsewhere than stdout (a saved plan). @default the config's */
  redact?: Redact;
  /** stdout is read as it is written (a terminal, a pipe), not a file: `Destinations`. null: not known. */
  stdoutShown?: boolean | null;
  /** The log's format as the command line chose it: pretty lines are read beside the plan. @default from the terminal and CI */
  logFormat?: LogFormat;
}

export function sourceContext(config: Config, io: CliIo) {
  return { stateDir: config.stateDir, env: io.env, logger: io.logger };
}

/** The sources a one-shot run covers: all, or the one `--source` names. */
export function selectSources(config: Config, args: CliArgs): SourceConfig[] {
  if (args.source === null) return config.sources;
  const source = config.sources.find((s) => s.name === args.source);
  if (source === undefined) {
    throw new UsageError(`no source named "${args.source}" (sources: ${config.sources.map((s) => s.name).join(', ')})`);
  }
  return [source];
}
