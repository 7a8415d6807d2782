import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { stringify } from 'yaml';
import type { SourceStatus } from '../../src/daemon/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { tempDir, waitFor } from './daemon-fixtures.js';

const CLI = path.resolve('dist/cli.js');

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
  const dir = await tempDir(t, 'pps-config-');
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
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });
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

export interface EmulatorPolicy {
  id: string;
  name: string;
  description: string | null;
  'enforcement-level': string;
  code: string | null;
}

export interface TestApi {
  emulator: RunningEmulator;
  policies(organization?: string): Promise<EmulatorPolicy[]>;
  control(method: string, pathname: string, body?: unknown): Promise<unknown>;
  /** A raw /api/v2 call, as a person changing things by hand would make. */
  api(method: string, pathname: string, body?: unknown): Promise<Response>;
}

/** The emulator on a free port for the daemon under test, closed when the test ends. */
export async function startTestApi(t: TestContext): Promise<TestApi> {
  const emulator = await startEmulator({ port: 0, seed: { token: 'e2e-token', rateLimit: 0, organizations: [{ name: 'example-org' }] } });
  t.after(() => emulator.close());
  const headers = { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/vnd.api+json' };
  const control = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${emulator.origin}/_emulator${pathname}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return response.json() as Promise<unknown>;
  };
  return {
    emulator,
    control,
    async policies(organization = 'example-org') {
      const state = (await control('GET', '/state')) as { organizations: { name: string; policies: EmulatorPolicy[] }[] };
      return state.organizations.find((o) => o.name === organization)?.policies ?? [];
    },
    api: (method, pathname, body) =>
      fetch(`${emulator.url}${pathname}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
  };
}

/** The description of policy `name` as the API holds it, without the ownership marker. */
export function descriptionOf(policies: EmulatorPolicy[], name: string): string | undefined {
  const description = policies.find((p) => p.name === name)?.description;
  return description?.replace(/\s*<!--[\s\S]*?-->\s*$/, '');
}
