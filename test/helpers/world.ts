import { after, before } from 'node:test';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startEmulator, type LoggedRequest, type RunningEmulator, type Seed } from '../../src/emulator/index.js';
import { runCli, spawnCli, type CliRun } from './cli.js';

export const ORG = 'example-org';
export const WORKSPACES = [
  { id: 'ws-AppAppApp0001', name: 'app' },
  { id: 'ws-DataDataData01', name: 'data' },
];
export const POLICY_SET = 'polset-Baseline0001';

export interface EmulatorState {
  organizations: Array<{
    name: string;
    policies: Array<Record<string, unknown>>;
    'agent-pools': Array<Record<string, unknown>>;
  }>;
}

/** An emulator on a real loopback port plus helpers to drive it the way the tests need. */
export class World {
  private constructor(readonly emulator: RunningEmulator, readonly stateDir: string) {}

  static async start(seed: Partial<Seed> = {}): Promise<World> {
    const emulator = await startEmulator({
      port: 0,
      seed: {
        token: 'test-token-Secret123',
        rateLimit: 0,
        organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES, policySets: [POLICY_SET] }],
        ...seed,
      },
    });
    return new World(emulator, await mkdtemp(join(tmpdir(), 'pps-state-')));
  }

  get url(): string {
    return this.emulator.url;
  }

  get token(): string {
    return this.emulator.token;
  }

  async close(): Promise<void> {
    await this.emulator.close();
    await removeDir(this.stateDir);
  }

  /**
   * The command line against this emulator, without a config file, run in this process (the code the binary runs).
   * Every run also checks that the token leaks nowhere.
   */
  cli(mode: string, dir: string, extra: string[] = [], logLevel = 'warn'): Promise<CliRun> {
    return this.checked(mode, runCli(this.argv(mode, dir, extra), { env: this.env(logLevel) }));
  }

  /** The same through the built binary in a child process, for the smoke tests of each mode. */
  spawnCli(mode: string, dir: string, extra: string[] = [], logLevel = 'warn'): Promise<CliRun> {
    return this.checked(mode, spawnCli(this.argv(mode, dir, extra), { env: this.env(logLevel) }));
  }

  private argv(mode: string, dir: string, extra: string[]): string[] {
    return [mode, '--source-dir', dir, '--organization', ORG, '--api-url', this.url, ...extra];
  }

  private env(logLevel: string): Record<string, string> {
    // The runs against one world share a state dir, and so a code cache, of their own.
    return { API_TOKEN: this.token, LOG_LEVEL: logLevel, STATE_DIR: this.stateDir };
  }

  private async checked(mode: string, running: Promise<CliRun>): Promise<CliRun> {
    const run = await running;
    if (`${run.stdout}${run.stderr}`.includes(this.token)) throw new Error(`the API token appeared in the output of ${mode}`);
    return run;
  }

  async api(method: string, path: string, body?: unknown, contentType = 'application/vnd.api+json'): Promise<{ status: number; json: unknown }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      // POST, PATCH and DELETE carry the media type even without a body, as the service requires.
      headers: { authorization: `Bearer ${this.token}`, ...(body === undefined && method === 'GET' ? {} : { 'content-type': contentType }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text === '' ? null : (JSON.parse(text) as unknown) };
  }

  async control<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.emulator.origin}/_emulator${path}`, {
      method,
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`control ${method} ${path}: ${response.status} ${await response.text()}`);
    const text = await response.text();
    return (text === '' ? null : JSON.parse(text)) as T;
  }

  async requests(): Promise<LoggedRequest[]> {
    return (await this.control<{ requests: LoggedRequest[] }>('GET', '/requests')).requests;
  }

  async writes(): Promise<LoggedRequest[]> {
    return (await this.requests()).filter((r) => r.method !== 'GET');
  }

  clearRequests(): Promise<unknown> {
    return this.control('DELETE', '/requests');
  }

  async organization(): Promise<EmulatorState['organizations'][number]> {
    const state = await this.control<EmulatorState>('GET', '/state');
    const org = state.organizations.find((o) => o.name === ORG);
    if (org === undefined) throw new Error('organization missing from emulator state');
    return org;
  }
}

/** A temp folder holding the given files (relative path -> content). */
export async function tempRepo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pps-repo-'));
  await writeFiles(dir, files);
  return dir;
}

export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
}

export async function copyRepo(from: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pps-copy-'));
  await cp(from, dir, { recursive: true });
  return dir;
}

export function removeDir(dir: string): Promise<void> {
  return rm(dir, { recursive: true, force: true });
}

export interface WorldFixture {
  readonly world: World;
  /** A temp repo removed after the suite. */
  repo(files: Record<string, string>): Promise<string>;
  /** Removes the folder after the suite. */
  track(dir: string): string;
}

/** Starts an emulator before the suite and closes it, and removes the suite's temp folders, after. */
export function useWorld(seed: Partial<Seed> = {}): WorldFixture {
  let world: World | undefined;
  const dirs: string[] = [];
  before(async () => {
    world = await World.start(seed);
  });
  after(async () => {
    await world?.close();
    await Promise.all(dirs.map(removeDir));
  });
  const track = (dir: string) => {
    dirs.push(dir);
    return dir;
  };
  return {
    get world() {
      if (world === undefined) throw new Error('the world starts before the suite');
      return world;
    },
    repo: async (files) => track(await tempRepo(files)),
    track,
  };
}
