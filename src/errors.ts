/**
 * The project's error classes, all of them (the emulator keeps its own replies): each sets `name` and keeps what its
 * catcher needs (status, file, cause). The CLI entry point turns those that reach it into a message and an exit code.
 */

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
    options?: { cause?: unknown; pointers?: readonly string[] },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.pointers = options?.pointers ?? [];
  }

  /** The `source.pointer` of each error object of the answer (`/data/attributes/kind`), in order; empty when none. */
  readonly pointers: readonly string[];
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

/**
 * A file of the state dir was not read: too large, unreadable, not what the daemon writes there (`corrupt`), or not
 * sealed by this tool for this API and owner (`unsealed`, `state-seal.ts`).
 */
export class StateFileError extends Error {
  override name = 'StateFileError';
  constructor(
    readonly file: string,
    readonly reason: 'too-large' | 'unreadable' | 'corrupt' | 'unsealed',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The API cannot be reached at all: the URL's host, port or scheme is wrong. Retrying would not help a one-shot run. */
export class UnreachableError extends UsageError {
  override name = 'UnreachableError';
}

/** An answer's body past its cap; the transport turns it into an ApiError naming the request, never retried. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`the response body is larger than ${limit} bytes`);
  }
}

/** A request other than to the API (a notification, a comment) got no answer: `message` is one line without the URL. */
export class OutgoingFailure extends Error {
  override name = 'OutgoingFailure';
  /** `final`: another try cannot help (the proxy refused the request). */
  constructor(message: string, readonly final = false) {
    super(message);
  }
}

/** Raised when git fails; the message never carries credentials of the URL. */
export class GitFetchError extends Error {
  override name = 'GitFetchError';
}

/** The policy's code file changed (or was swapped for a link) after it was read and validated. */
export class CodeChangedError extends Error {
  override name = 'CodeChangedError';
  constructor(readonly file: string, detail: string | null) {
    const why = detail === null ? '' : ` (it ${detail})`;
    super(`${file} changed since it was read and validated${why}; nothing was uploaded, the next pass reads it again`);
  }
}

/** A request to the API was kept off the wire: this replica does not hold the lease. */
export class NotLeaderError extends Error {
  override name = 'NotLeaderError';
}

/** The lease store could not be reached, or answered something else than the exchange expects. */
export class LeaseStoreError extends Error {
  override name = 'LeaseStoreError';
}

/** A one-shot run stopped by a signal before its first write: one line, the signal's exit status. */
export class Interrupted extends Error {
  override name = 'Interrupted';
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

export function formatProblem(p: SourceProblem): string {
  return `${p.file}${p.line === undefined ? '' : `:${p.line}`}: ${p.message}`;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
