import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { stringify } from 'yaml';
import type { SourceStatus } from '../../src/daemon/index.js';
import { CLI } from './cli.js';
import { tempTree } from './temp-tree.js';
import { waitFor } from './wait.js';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export interface DaemonProcess {
  origin: string;
  child: ChildProcess;
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

/**
 * Runs the built CLI (`node dist/cli.js --config FILE`) as a daemon with `config` (kebab-case keys, as in the file),
 * listening on a free port; resolves once it logs that it is listening. Killed when the test ends.
 */
export async function spawnDaemon(t: TestContext, config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<DaemonProcess> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first (npm test does)');
  // Registered before the temp folder's removal, so the daemon is killed before its state dir is removed (after
  // hooks run in the order they were added): a daemon still writing its history would make the removal fail.
  let kill: () => Promise<void> = () => Promise.resolve();
  t.after(() => kill());
  const dir = await tempTree(t, {}, 'pps-config-');
  const file = path.join(dir, 'daemon.yaml');
  await writeFile(file, stringify({ listen: '127.0.0.1:0', 'state-dir': path.join(dir, 'state'), ...config }));
  const child = spawn(process.execPath, [CLI, '--config', file], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  child.stdout?.resume();
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  };
  const logs = (): LogLine[] =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine);
  const listening = await waitFor(
    'the daemon to listen',
    () => {
      if (child.exitCode !== null) throw new Error(`daemon exited with ${child.exitCode}: ${stderr}`);
      return logs().find((l) => l.msg === 'daemon listening');
    },
    20_000,
  );
  const origin = String(listening.listen);
  return {
    origin,
    child,
    logs,
    stderr: () => stderr,
    exited,
    get: (pathname) => fetch(`${origin}${pathname}`),
    post: (pathname, body, headers) => fetch(`${origin}${pathname}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } }),
  };
}
