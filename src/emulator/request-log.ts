/** The log of /api/v2 requests that control endpoints expose. */

export interface LoggedRequest {
  method: string;
  /** After /api/v2, with the query string as sent; blob downloads keep their own path. */
  path: string;
  /** null when the connection was dropped without an answer. */
  status: number | null;
  'content-type': string | null;
  at: string;
}

export interface RequestLog {
  add(entry: LoggedRequest): void;
  list(): LoggedRequest[];
  clear(): void;
}

export function createRequestLog(): RequestLog {
  let entries: LoggedRequest[] = [];
  return {
    add: (entry) => void entries.push(entry),
    list: () => [...entries],
    clear: () => void (entries = []),
  };
}
