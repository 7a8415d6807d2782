import { destination, levels, pino, stdTimeFunctions, type DestinationStream, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';
import { UsageError } from './errors.js';
import { createRedactor, SECRET_LOG_FIELDS, type Redact } from './redact.js';

export type { Logger };

export type LogFormat = 'pretty' | 'json';

const LEVELS = [...Object.keys(levels.values), 'silent'];
const FORMATS: readonly LogFormat[] = ['pretty', 'json'];

export interface LoggerOptions {
  /** `LOG_LEVEL`; an unknown level is a usage error. @default 'info' */
  level?: string;
  /** `json`: one JSON object per line with an ISO timestamp; `pretty`: pino-pretty's readable lines. @default 'json' */
  format?: LogFormat;
  /** Where lines go; default: file descriptor 2, written synchronously so no line is lost at exit. */
  stream?: DestinationStream;
  /** Colour in pretty lines. @default false */
  color?: boolean;
  /** The redactor every line goes through before it is written. @default one that knows no secret, only their shapes */
  redact?: Redact;
}

/** Logs to stderr (or to `stream`), so stdout stays free for the plan. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const level = options.level ?? 'info';
  if (!LEVELS.includes(level)) {
    throw new UsageError(`LOG_LEVEL must be one of ${LEVELS.join(', ')}; got "${level}"`);
  }
  const sink: DestinationStream = options.stream ?? destination(2);
  const out = options.format === 'pretty' ? prettyLines(sink, options.color ?? false) : sink;
  return pino(
    {
      level,
      base: { name: 'policy-pool-sync' },
      timestamp: stdTimeFunctions.isoTime,
      redact: { paths: SECRET_LOG_FIELDS, censor: '***' },
      // Seconds and ratios to three decimals in both formats: `0.079`, never `0.0786589710000003`.
      formatters: { log: rounded },
      hooks: { streamWrite: options.redact ?? createRedactor([]) },
    },
    out,
  );
}

/**
 * `LOG_FORMAT`: `pretty` or `json`; unset means pretty for a person reading (`forReader`: a terminal, or a one-shot
 * run in CI, whose log is read beside the plan, as Terraform's is), JSON otherwise (a daemon's collector).
 */
export function logFormat(value: string | undefined, forReader: boolean): LogFormat {
  if (value === undefined || value === '') return forReader ? 'pretty' : 'json';
  if (!(FORMATS as readonly string[]).includes(value)) throw new UsageError(`LOG_FORMAT must be pretty or json; got "${value}"`);
  return value as LogFormat;
}

/** A CI run: `CI` set (to anything but `false` or `0`, as CI services set it), or `GITHUB_ACTIONS=true`. */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const ci = (env['CI'] ?? '').trim().toLowerCase();
  return (ci !== '' && ci !== 'false' && ci !== '0') || env['GITHUB_ACTIONS'] === 'true';
}

/** pino-pretty's formatter applied line by line, synchronously, so a line written before exit is never lost. */
function prettyLines(sink: DestinationStream, color: boolean): DestinationStream {
  const format = pinoPretty.prettyFactory({ colorize: color, translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l', ignore: 'pid,hostname,name', singleLine: true });
  return {
    write(line: string) {
      sink.write(format(JSON.parse(line) as Record<string, unknown>));
    },
  };
}

/** A record's fractional numbers (durations, mostly) to three decimals: a person reads them, a collector needs no more. */
function rounded(record: Record<string, unknown>): Record<string, unknown> {
  const round = (value: unknown): unknown => {
    if (typeof value === 'number' && !Number.isInteger(value)) return Math.round(value * 1000) / 1000;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, round(inner)]));
    }
    return value;
  };
  return round(record) as Record<string, unknown>;
}

/** What waits for a stderr nobody reads, at most, before further lines are dropped (a server's writer). */
const STDERR_BACKLOG_BYTES = 16 * 1024 * 1024;

/**
 * A writer to file descriptor 2 (sonic-boom, pino's own). A pipe's reader can fall behind (a container runtime's log
 * collector, a benchmark): the descriptor is non-blocking once `process.stderr` is opened, and a plain `writeSync`
 * then throws EAGAIN and ends the process.
 * - `sync: true` (a one-shot run): each line is written before `write` returns, a full pipe waited out, so every line
 *   is in order with the plan and written before exit.
 * - `sync: false` (a server: the daemon, the emulator): lines are written in order as the pipe takes them, without
 *   holding the event loop (so `/healthz` answers while the collector is slow); at most `STDERR_BACKLOG_BYTES` wait,
 *   and what waits at exit is written then.
 */
export function stderrWriter(options: { sync: boolean }): DestinationStream {
  if (options.sync) return destination({ fd: 2, sync: true });
  const stream = destination({ fd: 2, sync: false, minLength: 0, maxLength: STDERR_BACKLOG_BYTES });
  process.once('exit', () => {
    try {
      stream.flushSync();
    } catch {
      // Nothing more can be written (stderr closed).
    }
  });
  return stream;
}

/** A logger that writes nothing, for library use and tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
