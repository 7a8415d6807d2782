/**
 * A memory cgroup for one child process, as a container's memory limit would be: Node sizes its heap from the
 * limit it finds there. Needs root and a writable cgroup memory controller (v1 or v2); null when there is none.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface MemoryCgroup {
  /** The command that runs `argv` inside the cgroup (a shell moves itself in, then execs, keeping its pid). */
  wrap(argv: string[]): { command: string; args: string[] };
  /** Whether the kernel killed a process of the cgroup for running out of memory. */
  oomKilled(): boolean;
  remove(): void;
}

interface Layout {
  dir: string;
  limitFile: string;
  oomFile: string;
}

function layout(name: string): Layout | null {
  const v1 = '/sys/fs/cgroup/memory';
  if (existsSync(path.join(v1, 'memory.limit_in_bytes'))) {
    const dir = path.join(v1, name);
    return { dir, limitFile: path.join(dir, 'memory.limit_in_bytes'), oomFile: path.join(dir, 'memory.oom_control') };
  }
  const v2 = '/sys/fs/cgroup';
  if (readSafe(path.join(v2, 'cgroup.subtree_control')).split(/\s+/).includes('memory')) {
    const dir = path.join(v2, name);
    return { dir, limitFile: path.join(dir, 'memory.max'), oomFile: path.join(dir, 'memory.events') };
  }
  return null;
}

export function memoryCgroup(name: string, limitBytes: number): MemoryCgroup | null {
  const where = layout(name);
  if (where === null) return null;
  try {
    mkdirSync(where.dir, { recursive: true });
    writeFileSync(where.limitFile, String(limitBytes));
  } catch {
    return null;
  }
  const procs = path.join(where.dir, 'cgroup.procs');
  return {
    wrap: (argv) => ({ command: 'sh', args: ['-c', `echo $$ > ${procs} && exec "$@"`, 'sh', ...argv] }),
    oomKilled: () => /^oom_kill [1-9]/m.test(readSafe(where.oomFile)),
    remove() {
      try {
        rmdirSync(where.dir);
      } catch {
        // Still in use by a process that has not exited; the next run reuses it.
      }
    },
  };
}

function readSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
