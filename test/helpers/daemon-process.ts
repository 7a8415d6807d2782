import { stoppedWithTest } from './daemon-state-dir.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import { stringify } from 'yaml';
import { runCommandLine } from '../../src/cli/main.js';
import type { SourceStatus } from '../../src/daemon/index.js';
import { CLI } from './cli.js';
import { addedListeners, inProcessState, listenerSnapshot } from './process-state.js';
import { tempTree } from './temp-tree.js';
import { waitFor } from './wait.js';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** What the tests do with the daemon's process: signal it, see whether it has ended, follow its output. */
export type DaemonChild = Pick<ChildProcess, 'kill' | 'exitCode' | 'signalCode' | 'pid' | 'stdout' | 'stderr'>;

export interface DaemonProcess {
  origin: string;
  child: DaemonChild;
  /** Every JSON log line written to stderr so far. */
  logs(): LogLine[];
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  get(pathname: string): Promise<Response>;
  post(pathname: string, body: string, headers: Record<string, string>): Promise<Response>;
}

/** The `/status` entry of the daemon's first (in these tests, only) source. */
export async function firstSourceStatus(daemon: DaemonProcess): Promise<SourceStatus> {
  const body = (await (await daemon.get('/status')).json()) as { sources: SourceStatus[] };
  const [first] = body.sources;
  if (first === undefined) throw new Error('/status lists no source');
  return first;
}

/** A daemon started by `runDaemon`, in a child process or in this one. */
interface Started {
  child: DaemonChild;
  exited: Promise<number | string>;
  stderr(): string;
  /** Ends it at the test's end if still running. */
  stop(): Promise<void>;
  /** Called once it listens. */
  listening?(): void;
}

/**
 * Runs the command line's daemon mode (`--config FILE`) with `config` (kebab-case keys, as in the file), listening on
 * a free port, with a shutdown timeout of 1 s unless given; resolves once it logs that it is listening. Stopped when
 * the test ends. It runs in this process (the
 * code `node dist/cli.js --config FILE` runs, from the command line on: `child.kill('SIGTERM')` or `'SIGINT'` calls the
 * daemon's own signal handler) unless it elects a leader (`leader-election:`, whose tests stop, kill and count
 * processes) or `PPS_TEST_SPAWN=1`: then it is `node dist/cli.js` in a child process. test/cli-binary.test.ts runs
 * the binary's daemon mode.
 */
export async function spawnDaemon(t: TestContext, config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  const spawned = process.env['PPS_TEST_SPAWN'] === '1' || config['leader-election'] !== undefined;
  if (spawned && !existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
  // Registered before the temp folder's removal, so the daemon is stopped before its state dir is removed (after
  // hooks run in the order they were added): a daemon still writing its history would make the removal fail.
  let stop: () => Promise<void> = () => Promise.resolve();
  t.after(stoppedWithTest(t, () => stop()));
  const dir = await tempTree(t, {}, 'pps-config-');
  const file = path.join(dir, 'daemon.yaml');
  // A second of grace for a pass in flight at a stop (SHUTDOWN_TIMEOUT or the test's config give more): the stop at
  // the test's end then waits at most that long for a pass stuck on an API that has gone away.
  const written = { listen: '127.0.0.1:0', 'state-dir': path.join(dir, 'state'), 'shutdown-timeout': 1, ...config };
  await writeFile(file, stringify(written));
  const daemonEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'debug', ...env };
  const started = spawned ? startChild(file, daemonEnv) : startInProcess(file, daemonEnv);
  stop = started.stop;
  const logs = (): LogLine[] =>
    started
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  const listening = await waitFor(
    'the daemon to listen',
    () => {
      if (started.child.exitCode !== null) throw new Error(`daemon exited with ${started.child.exitCode}: ${started.stderr()}`);
      return logs().find((l) => l.msg === 'daemon listening');
    },
    20_000,
  );
  const origin = String(listening.listen);
  started.listening?.();
  return {
    origin,
    child: started.child,
    logs,
    stderr: started.stderr,
    exited: started.exited,
    get: (pathname) => fetch(`${origin}${pathname}`),
    post: (pathname, body, headers) => fetch(`${origin}${pathname}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }),
  };
}

/** `node dist/cli.js --config FILE`, killed (SIGKILL) at the test's end. */
function startChild(file: string, env: NodeJS.ProcessEnv): Started {
  const child = spawn(process.execPath, [CLI, '--config', file], { cwd: process.cwd(), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout?.resume();
  // 'close', not 'exit': its output is then read to the end, so a line it wrote before exiting is in `logs()`.
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  return { child, exited, stderr: () => stderr, stop };
}

/**
 * `runCommandLine(['--config', FILE])` in this process, its stdout and stderr captured. Its "process" takes SIGTERM
 * and SIGINT by calling the stop handler the daemon registered on this process; any other signal needs a child.
 */
function startInProcess(file: string, env: NodeJS.ProcessEnv): Started {
  let stderr = '';
  // What it writes, also as the streams a child's would be (flowing: what nobody listens to is dropped).
  const output = { stdout: new PassThrough().resume(), stderr: new PassThrough().resume() };
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      stderr += chunk.toString();
      output.stderr.write(chunk);
      done();
    },
  });
  const stdout = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      output.stdout.write(chunk);
      done();
    },
  });
  const before = listenerSnapshot();
  let handlers: Array<[string, (...args: unknown[]) => void]> | null = null;
  const child = {
    pid: process.pid,
    ...output,
    exitCode: null as number | null,
    signalCode: null,
    kill(signal: NodeJS.Signals | number = 'SIGTERM'): boolean {
      if (signal !== 'SIGTERM' && signal !== 'SIGINT') throw new Error(`an in-process daemon takes SIGTERM or SIGINT, not ${signal}: give it leader-election or PPS_TEST_SPAWN=1 for a child process`);
      if (child.exitCode !== null) return false;
      // Called once: a second signal would make it exit this process.
      const handler = handlers?.find(([event]) => event === signal);
      handlers = [];
      handler?.[1](signal);
      return handler !== undefined;
    },
  };
  const exited = inProcessState(undefined, () => runCommandLine(['--config', file], { stdout: stdout as unknown as NodeJS.WriteStream, stderr: sink, env })).then(
    (code) => (child.exitCode = code),
    (error: unknown) => {
      stderr += `${String(error)}\n`;
      return (child.exitCode = 1);
    },
  );
  const stop = async () => {
    if (child.exitCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  // The daemon's own stop handler: the one it added to the process before it listened (kept here, called directly,
  // since another in-process run that ends meanwhile takes the handlers added during it off the process).
  const listening = () => void (handlers = addedListeners(before));
  return { child: child as DaemonChild, exited, stderr: () => stderr, stop, listening };
}
