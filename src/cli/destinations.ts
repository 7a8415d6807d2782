import { fstatSync } from 'node:fs';

/** Where the plan (stdout) and the log (stderr) of a run go, as far as the process can tell. */
export interface Destinations {
  /**
   * stdout is read as it is written: a terminal, or a pipe or socket (a pager, `tee`, a CI service's log), so a text
   * plan's errors are read there; false for a file; null when the stream has no descriptor (library use).
   */
  stdoutShown: boolean | null;
  /** stdout and stderr are the same file or pipe (`2>&1`): the log's lines land among the plan's. */
  shared: boolean;
}

export function destinations(stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): Destinations {
  const out = described(stdout);
  const err = described(stderr);
  const shown = (stdout as { isTTY?: boolean }).isTTY === true || (out !== null && (out.isFIFO() || out.isSocket()));
  return {
    stdoutShown: shown ? true : out === null ? null : false,
    shared: out !== null && err !== null && out.dev === err.dev && out.ino === err.ino,
  };
}

function described(stream: NodeJS.WritableStream): ReturnType<typeof fstatSync> | null {
  const fd = (stream as { fd?: unknown }).fd;
  if (typeof fd !== 'number') return null;
  try {
    return fstatSync(fd);
  } catch {
    return null;
  }
}
