import { spawn, type ChildProcess } from 'node:child_process';
import { Writable } from 'node:stream';
import { join } from 'node:path';
import { runCommandLine } from '../../src/cli/main.js';
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
  /** Kills the process (SIGKILL) after this long: for a run that must end by itself. */
  timeoutMs?: number;
  /** In-process runs only: stdout and stderr say they are a terminal (`isTTY`), as a person's are. @default false */
  terminal?: boolean;
}

function baseEnv(env: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env };
}

/** Runs the built CLI as a child process, the way users and CI run it. */
export function spawnCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  return startCli(args, options).done;
}

/** Starts the built CLI as a child process: `child` to signal it while it runs, `done` once it has exited. */
export function startCli(args: string[], options: CliOptions = {}): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: options.cwd,
    env: baseEnv(options.env),
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
 * code, with stdout and stderr captured. Much cheaper than a child process; `spawnCli` covers the binary itself.
 */
export async function runCli(args: string[], options: Omit<CliOptions, 'cwd'> = {}): Promise<CliRun> {
  const stdout = capture();
  const stderr = capture();
  if (options.terminal === true) for (const stream of [stdout.stream, stderr.stream]) Object.assign(stream, { isTTY: true, columns: 120 });
  const code = await runCommandLine(args, {
    stdout: stdout.stream as unknown as NodeJS.WriteStream,
    stderr: stderr.stream,
    env: baseEnv(options.env),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
