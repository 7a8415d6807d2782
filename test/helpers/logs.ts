import { pino } from 'pino';
import type { Logger } from '../../src/logger.js';

/** What a logger wrote, at debug level and without any redaction: what the code logs is what a test sees. */
export interface CapturedLogs {
  logger: Logger;
  /** Every line written, as JSON text. */
  lines: string[];
  /** All the lines as one text, to look for a secret in. */
  text(): string;
  /** The `msg` of every line. */
  messages(): string[];
}

export function captureLogs(): CapturedLogs {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return {
    logger,
    lines,
    text: () => lines.join(''),
    messages: () => lines.map((l) => (JSON.parse(l) as { msg?: string }).msg ?? ''),
  };
}
