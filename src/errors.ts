/** The project's error classes. Only the CLI entry point catches them and turns them into a message and an exit code. */

export interface FailedRequest {
  method: string;
  /** Path and query, without origin and never with credentials. */
  path: string;
}

/** The API answered with a status the caller did not expect. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    message: string,
    readonly status: number,
    readonly detail: string | null,
    readonly request: FailedRequest,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The request never got an answer: connection refused or reset, timeout. */
export class NetworkError extends Error {
  override name = 'NetworkError';
  constructor(message: string, readonly request: FailedRequest, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Policy code over the API's size limit; refused before anything is sent. */
export class CodeTooLargeError extends Error {
  override name = 'CodeTooLargeError';
  constructor(readonly file: string, readonly size: number, readonly limit: number) {
    super(`${file} is ${size} bytes; the API accepts at most ${limit} bytes of policy code: split or shrink it`);
  }
}

export interface SourceProblem {
  /** Path relative to the source root (or the config file). */
  file: string;
  line?: number;
  message: string;
}

/** The declared repo or the config is invalid; carries every problem found. */
export class ValidationError extends Error {
  override name = 'ValidationError';
  constructor(message: string, readonly problems: SourceProblem[]) {
    super(message);
  }
}

/** The caller used the tool wrongly: bad flags, missing token. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** A file of the state dir was not read: too large, unreadable, or not what the daemon writes there (`corrupt`). */
export class StateFileError extends Error {
  override name = 'StateFileError';
  constructor(
    readonly file: string,
    readonly reason: 'too-large' | 'unreadable' | 'corrupt',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function formatProblem(p: SourceProblem): string {
  return `${p.file}${p.line === undefined ? '' : `:${p.line}`}: ${p.message}`;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
