/** The log of /api/v2 requests that control endpoints expose. */

export interface LoggedRequest {
  method: string;
  /** After /api/v2, with the query string as sent; blob downloads keep their own path. */
  path: string;
  /** null when the connection was dropped without an answer. */
  status: number | null;
  'content-type': string | null;
  /** Which client sent it (a daemon under leader election names its replica: `(instance NAME)`). */
  'user-agent': string | null;
  at: string;
}

export interface RequestLog {
  add(entry: LoggedRequest): void;
  list(): LoggedRequest[];
  clear(): void;
}

/** Requests the log keeps by default: the most recent; older ones are dropped, so a long-running emulator stays bounded. */
export const REQUEST_LOG_LIMIT = 100_000;

/** The log of the last `limit` requests. */
export function createRequestLog(limit = REQUEST_LOG_LIMIT): RequestLog {
  let entries: LoggedRequest[] = [];
  return {
    add(entry) {
      entries.push(entry);
      // Trimmed in batches, so that an add costs O(1) on average and the log holds at most twice the limit.
      if (entries.length >= 2 * limit) entries = entries.slice(-limit);
    },
    list: () => entries.slice(-limit),
    clear: () => void (entries = []),
  };
}
