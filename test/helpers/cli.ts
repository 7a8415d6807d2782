import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, openSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { runCommandLine } from '../../src/cli/main.js';
import { inProcessState } from './process-state.js';
import { REPO_ROOT } from './repo-root.js';

export const CLI = join(REPO_ROOT, 'dist/cli.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Kills the process (SIGKILL) after this long: for a run that must end by itself. In this process: gives up waiting (code null). */
  timeoutMs?: number;
  /** In-process runs only: stdout and stderr say they are a terminal (`isTTY`), as a person's are. @default false */
  terminal?: boolean;
  /** In-process runs only: stdout is this file, opened for writing (`> FILE`); `stdout` is what it then holds. */
  stdoutFile?: string;
}

/** The environment of a run: PATH, no colour, and a cache folder (the state dir of flags-only runs) in its working directory. */
function baseEnv(env: Record<string, string> = {}, cwd: string = process.cwd()): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', XDG_CACHE_HOME: join(cwd, '.cache'), ...env };
}

/**
 * The command line as users and CI run it, with only `env` (and PATH) in its environment: run in this process through
 * `runCommandLine`, the code the binary runs from argument parsing to the exit code (a child process costs about 35
 * times the CPU, all of it loading modules). `PPS_TEST_SPAWN=1` runs each in a child process of the built binary
 * instead; `startCli` (and `World.spawnCli`) always do, and test/cli-binary.test.ts runs every mode through it.
 */
export function spawnCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return process.env['PPS_TEST_SPAWN'] === '1' ? startCli(args, options).done : runInProcess(args, options);
}

/** Starts the built CLI as a child process: `child` to signal it while it runs, `done` once it has exited. */
export function startCli(args: string[], options: CliOptions = {}): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: baseEnv(options.env, options.cwd),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs, killSignal: 'SIGKILL' as const }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  return { child, done };
}

/** A file opened for writing, as a shell's `> FILE` gives it (its descriptor known at once); `text` ends it and reads it. */
function fileStream(file: string): { stream: Writable; text(): Promise<string> } {
  const stream = createWriteStream(file, { fd: openSync(file, 'w') });
  return { stream, text: () => new Promise<void>((ended) => stream.end(ended)).then(() => readFileSync(file, 'utf8')) };
}

/** A stream that keeps what is written to it. */
function capture(): { stream: Writable; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

/**
 * Runs the command line in this process: the same code the binary runs, from argument parsing to the exit
 * code, with stdout and stderr captured. Much cheaper than a child process; `startCli` covers the binary itself.
 */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return runInProcess(args, options);
}

/**
 * `runCommandLine` with captured output, in `cwd` when given; the working directory, signal handlers, exit code and
 * umask of this process are put back when it ends (see process-state.ts). After `timeoutMs` it is given up on with
 * code null, as a killed child would be.
 */
async function runInProcess(args: string[], options: CliOptions): Promise<CliRun> {
  const stdout = options.stdoutFile === undefined ? capture() : fileStream(options.stdoutFile);
  const stderr = capture();
  if (options.terminal === true) for (const stream of [stdout.stream, stderr.stream]) Object.assign(stream, { isTTY: true, columns: 120 });
  const result = async (code: number | null): Promise<CliRun> => ({ code, stdout: await stdout.text(), stderr: stderr.text() });
  return inProcessState(options.cwd, async () => {
    const run = runCommandLine(args, {
      stdout: stdout.stream as unknown as NodeJS.WriteStream,
      stderr: stderr.stream,
      env: baseEnv(options.env, options.cwd),
    });
    if (options.timeoutMs === undefined) return result(await run);
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), options.timeoutMs)));
    try {
      return result(await Promise.race([run, gaveUp]));
    } finally {
      clearTimeout(timer);
    }
  });
}
