/** The emulator plus the command line pointed at it: what the one-shot suites drive. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { RunningEmulator, Seed } from '../../src/emulator/index.js';
import { runCli, startCli, type CliRun } from './cli.js';
import { ORG, TestEmulator } from './emulator.js';
import { useTempTrees, type Tree } from './temp-tree.js';

export class World extends TestEmulator {
  /** The runs against one world share a state dir, and so a code cache, of their own. */
  readonly stateDir: string;

  constructor(emu: RunningEmulator) {
    super(emu);
    this.stateDir = mkdtempSync(join(tmpdir(), 'pps-state-'));
  }

  override async close(): Promise<void> {
    await super.close();
    rmSync(this.stateDir, { recursive: true, force: true });
  }

  /**
   * The command line against this emulator, without a config file, run in this process (the code the binary runs).
   * Every run also checks that the token leaks nowhere.
   */
  cli(mode: string, dir: string, extra: string[] = [], logLevel = 'warn', env: Record<string, string> = {}): Promise<CliRun> {
    return this.checked(mode, runCli(this.argv(mode, dir, extra), { env: { ...this.env(logLevel), ...env } }));
  }

  /**
   * The same through the built binary in a child process (`startCli`), for what only a process shows: that the run
   * has ended once the process has (its connections gone with it), and the smoke tests of each mode.
   */
  spawnCli(mode: string, dir: string, extra: string[] = [], logLevel = 'warn', env: Record<string, string> = {}): Promise<CliRun> {
    return this.checked(mode, startCli(this.argv(mode, dir, extra), { env: { ...this.env(logLevel), ...env } }).done);
  }

  private argv(mode: string, dir: string, extra: string[]): string[] {
    return [mode, '--source-dir', dir, '--organization', ORG, '--api-url', this.url, ...extra];
  }

  private env(logLevel: string): Record<string, string> {
    return { API_TOKEN: this.token, LOG_LEVEL: logLevel, STATE_DIR: this.stateDir };
  }

  private async checked(mode: string, running: Promise<CliRun>): Promise<CliRun> {
    const run = await running;
    if (`${run.stdout}${run.stderr}`.includes(this.token)) throw new Error(`the API token appeared in the output of ${mode}`);
    return run;
  }
}

export interface WorldFixture {
  readonly world: World;
  /** A temp folder holding `tree`, removed after the suite. */
  repo(tree?: Tree): Promise<string>;
}

/**
 * The emulator's behaviour for the one-shot suites: a new policy set version reads `ingressing` for 150 ms, not the
 * emulator's 500, so that an apply still reads it once before it is ready (its first look again is 200 ms on), at a
 * third of the wait. The suites of the emulator itself, and a seed that gives its own `behaviour`, keep 500.
 */
const WORLD_BEHAVIOUR: Seed['behaviour'] = { ingestionMs: 150 };

/** Inside a `describe`: a World started before the suite and closed after it, and temp repos removed after it. */
export function useWorld(seed: Partial<Seed> = {}): WorldFixture {
  let world: World | undefined;
  before(async () => {
    world = await World.start({ behaviour: WORLD_BEHAVIOUR, ...seed });
  });
  after(() => world?.close());
  const repo = useTempTrees('pps-repo-');
  return {
    get world() {
      if (world === undefined) throw new Error('the world starts before the suite');
      return world;
    },
    repo,
  };
}
