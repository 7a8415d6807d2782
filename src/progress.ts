import type { DestinationStream } from 'pino';
import type { Logger } from './logger.js';

/** The phases of a pass that can take long. */
export type PassPhase = 'reading' | 'downloading' | 'applying';

/** Where a pass stands; `total` is null while unknown. */
export interface PassProgress {
  source: string;
  phase: PassPhase;
  done: number;
  total: number | null;
  failed: number;
  /** While applying: the wave under way (apply/waves.ts). */
  wave?: string;
}

const PHASE_WORDS: Record<PassPhase, string> = {
  reading: 'reading the declared repo and the live state',
  downloading: 'checking live code',
  applying: 'applying',
};

/** e.g. `applying 120/300 (3 failed), about 6 s left`, from the progress and the ms spent in the phase so far. */
export function progressLine(progress: PassProgress, elapsedMs: number): string {
  const { phase, done, total, failed } = progress;
  let line = PHASE_WORDS[phase];
  if (total !== null) line += ` ${done}/${total}`;
  if (failed > 0) line += ` (${failed} failed)`;
  if (total !== null && done > 0 && done < total) line += `, about ${duration((elapsedMs / done) * (total - done))} left`;
  return line;
}

function duration(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  return seconds < 90 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}

/**
 * One line at the bottom of a terminal, rewritten in place, under log lines written through the same writer:
 * each log line first clears it and then draws it again below.
 */
export class TerminalLine implements DestinationStream {
  private shown = '';

  constructor(private readonly out: { write(text: string): unknown }) {}

  write(text: string): void {
    this.out.write(`${this.shown === '' ? '' : '\r\u001b[2K'}${text}${this.shown}`);
  }

  show(line: string): void {
    if (line === this.shown) return;
    this.out.write(`\r\u001b[2K${line}`);
    this.shown = line;
  }

  clear(): void {
    if (this.shown === '') return;
    this.out.write('\r\u001b[2K');
    this.shown = '';
  }
}

export interface ProgressReporterOptions {
  logger: Logger;
  /** On a terminal: the line to keep updated; progress is then not logged. */
  terminal?: TerminalLine | null;
  /** Longest silence between two reports of a phase in progress. @default 5000 */
  intervalMs?: number;
  /** Phases whose start is a debug line, not info (the daemon's reading of an idle source); their reports while they last stay info. @default none */
  quietStarts?: readonly PassPhase[];
  now?: () => number;
}

/**
 * Turns a pass's progress events into what a person watching sees: one updating line on a terminal, otherwise an
 * info log line when a phase starts and then at least every `intervalMs` while it lasts.
 */
export class ProgressReporter {
  private current: PassProgress | null = null;
  private phaseStart = 0;
  private lastReport = 0;
  private timer: NodeJS.Timeout | null = null;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ProgressReporterOptions) {
    this.intervalMs = options.intervalMs ?? 5000;
    this.now = options.now ?? (() => performance.now());
  }

  /** The latest state of the pass; cheap to call on every event. */
  update(progress: PassProgress): void {
    const previous = this.current;
    this.current = { ...progress };
    const now = this.now();
    const newPhase = previous === null || previous.phase !== progress.phase || previous.source !== progress.source;
    if (newPhase) {
      this.phaseStart = now;
      this.report(this.options.quietStarts?.includes(progress.phase) === true ? 'debug' : 'info');
      this.schedule();
    } else if (this.options.terminal) {
      // A terminal line costs nothing to redraw, but not more than ten times a second.
      if (now - this.lastReport >= 100) this.report();
    }
  }

  /** The pass is over: stop reporting and clear the terminal line. */
  end(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.current = null;
    this.options.terminal?.clear();
  }

  private schedule(): void {
    if (this.timer !== null) clearInterval(this.timer);
    const every = this.options.terminal ? Math.min(1000, this.intervalMs) : this.intervalMs;
    this.timer = setInterval(() => this.report(), every);
    this.timer.unref();
  }

  private report(level: 'info' | 'debug' = 'info'): void {
    const progress = this.current;
    if (progress === null) return;
    this.lastReport = this.now();
    const line = progressLine(progress, this.lastReport - this.phaseStart);
    if (this.options.terminal) {
      this.options.terminal.show(`[${progress.source}] ${line}${progress.wave === undefined ? '' : ` (${progress.wave})`}`);
      return;
    }
    const { source, phase, done, total, failed, wave } = progress;
    this.options.logger[level]({ source, phase, done, total, failed, ...(wave === undefined ? {} : { wave }) }, line);
  }
}
