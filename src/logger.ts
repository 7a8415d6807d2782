import { destination, pino, type Logger } from 'pino';

export type { Logger };

/** Paths of log fields that could carry secrets; pino replaces them. */
const REDACT = ['token', 'apiToken', 'authorization', 'headers.authorization', 'webhookSecret', '*.token', '*.authorization'];

/** JSON logs to stderr (or to `stream`), so stdout stays free for the plan. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', stream?: NodeJS.WritableStream): Logger {
  return pino({ level, base: { name: 'policy-pool-sync' }, redact: { paths: REDACT, censor: '[redacted]' } }, stream ?? destination(2));
}

/** A logger that writes nothing, for library use and tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
