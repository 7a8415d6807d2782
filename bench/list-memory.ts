/**
 * Memory whatever the API answers: the peak RSS, seconds and outcome of a dry run (the built CLI) and of a daemon's
 * first pass (the built daemon, in apply mode), each a process of its own, against the emulator in this process:
 *
 * - within the limits: an organization of POLICIES policies (default 1,000) the repo declares, no change;
 * - endless fat pages: the same, its policy list answered by the emulator's `fat-pages` fault, a list that never ends
 *   of 100 new policies a page with 38 kB descriptions (3.8 MB pages);
 * - fat run pages: a repo raising one policy to hard-mandatory, whose evidence (the runs of 4 workspaces, at the
 *   default budget) is read from a run list answered the same way, 100 runs a page with 38 kB messages.
 *
 * The goal: each case ends, with a message when it cannot finish, within 320 MiB peak RSS (the pod's limit in
 * deploy/base) and in under a minute. Run: npm run build && node --import tsx bench/list-memory.ts [POLICIES=1000];
 * CHILD_NODE_OPTIONS=--max-old-space-size=192 runs the CLI and the daemon with the image's heap flag.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import type { FaultSpec } from '../src/emulator/types.js';
import { until } from './lib/until.js';
import { writePolicies } from './lib/generate.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./lib/peak-rss.mjs', import.meta.url));
const ORG = 'bench-org';
/** What the measured processes run with besides: the image's NODE_OPTIONS, when given. */
const CHILD_ENV = process.env['CHILD_NODE_OPTIONS'] ? { NODE_OPTIONS: process.env['CHILD_NODE_OPTIONS'] } : {};
const POLICIES = Number(process.argv[2] ?? 1000);
const WORKSPACES = [
  { id: 'ws-AppProd000001', name: 'app-prod' }, { id: 'ws-DataProd00001', name: 'data-prod' },
  { id: 'ws-WebDev0000001', name: 'web-dev' }, { id: 'ws-Sandbox000001', name: 'sandbox' },
];
const FAT_POLICIES: FaultSpec = { kind: 'fat-pages', method: 'GET', path: `^/organizations/${ORG}/policies$`, count: 0 };
const FAT_RUNS: FaultSpec = { kind: 'fat-pages', method: 'GET', path: '/runs$', count: 0, attribute: 'message' };

interface Figures {
  peakMiB: number;
  seconds: number;
  outcome: string;
}

async function main(): Promise<void> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'pps-bench-list-memory-'));
  const emulator = await startEmulator({
    port: 0,
    seed: {
      token: 'bench-token-list-memory', rateLimit: 0,
      organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES, runs: [{ workspace: WORKSPACES[0]!.id, createdAt: new Date().toISOString(), outcomes: [{ policy: 's3-encryption', set: 'all', status: 'passed' }] }] }],
    },
    requestLogLimit: 100,
  });
  try {
    const repo = path.join(scratch, 'repo');
    await writePolicies(repo, POLICIES);
    await writeFile(path.join(repo, 'policies', 's3-encryption.native'), 'main = rule { true }\n');
    await writeFile(path.join(repo, 'policies', 's3-encryption.yaml'), 'enforcement-level: advisory\npolicy-sets: [all]\n');
    await mkdir(path.join(repo, 'policy-sets'), { recursive: true });
    await writeFile(path.join(repo, 'policy-sets', 'all.yaml'), 'global: true\n');
    const created = await cli(emulator, scratch, ['--reconcile', '--source-dir', repo]);
    if (created.outcome !== 'exit 0') throw new Error(`the organization could not be made: ${created.outcome}`);
    const tightening = path.join(scratch, 'tightening');
    await cp(repo, tightening, { recursive: true });
    await writeFile(path.join(tightening, 'policies', 's3-encryption.yaml'), 'enforcement-level: hard-mandatory\npolicy-sets: [all]\n');
    console.log(`${POLICIES + 1} policies in the organization; emulator without a rate limit; the pod's limit is 320 MiB${CHILD_ENV.NODE_OPTIONS === undefined ? '' : `; NODE_OPTIONS=${CHILD_ENV.NODE_OPTIONS}`}`);
    const row = (label: string, f: Figures) => console.log(`${label.padEnd(44)} peak ${f.peakMiB.toFixed(0).padStart(5)} MiB  ${f.seconds.toFixed(1).padStart(5)} s  ${f.outcome}`);

    row('dry run, within the limits', await cli(emulator, scratch, ['--dry-run', '--source-dir', repo]));
    row('daemon pass, within the limits', await daemonPass(emulator, scratch, repo));
    await withFault(emulator, FAT_POLICIES, async () => {
      row('dry run, endless 3.8 MB pages', await cli(emulator, scratch, ['--dry-run', '--source-dir', repo]));
      row('daemon pass, endless 3.8 MB pages', await daemonPass(emulator, scratch, repo));
    });
    await withFault(emulator, FAT_RUNS, async () => {
      row('dry run, fat run pages (evidence)', await cli(emulator, scratch, ['--dry-run', '--source-dir', tightening, '--no-cache']));
      row('daemon pass, fat run pages (evidence)', await daemonPass(emulator, scratch, tightening));
    });
  } finally {
    await emulator.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

async function withFault(emulator: RunningEmulator, fault: FaultSpec, work: () => Promise<void>): Promise<void> {
  const control = (method: string, body?: unknown) => fetch(`${emulator.origin}/_emulator/faults`, {
    method, headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).then(async (r) => {
    if (!r.ok) throw new Error(`the emulator refused the fault: ${r.status} ${await r.text()}`);
  });
  await control('POST', { faults: [fault] });
  try {
    await work();
  } finally {
    await control('DELETE');
  }
}

/** One CLI run as a process of its own, its peak RSS from the preload; the last line of its error, if any. */
async function cli(emulator: RunningEmulator, scratch: string, args: string[]): Promise<Figures> {
  const rssFile = path.join(scratch, `rss-${process.hrtime.bigint()}`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PRELOAD, CLI, ...args, '--organization', ORG, '--source', 'bench', '--api-url', emulator.url, '--state-dir', path.join(scratch, 'state')], {
    env: { PATH: process.env['PATH'], API_TOKEN: emulator.token, LOG_LEVEL: 'error', PPS_BENCH_RSS_FILE: rssFile, ...CHILD_ENV },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const sampled = sampleHwm(child.pid);
  const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])));
  const seconds = (performance.now() - started) / 1000;
  const peakMiB = Math.max(Number(await readFile(rssFile, 'utf8').catch(() => '0')), sampled.stop()) / 1024;
  const ended = signal === null ? `exit ${code}` : `killed by ${signal}`;
  return { peakMiB, seconds, outcome: `${ended}${code === 0 ? '' : `: ${lastLine(stderr)}`}` };
}

/** A daemon's first pass (start-up), its peak RSS sampled from /proc while it runs; stopped once the pass ended. */
async function daemonPass(emulator: RunningEmulator, scratch: string, repo: string): Promise<Figures> {
  const config = path.join(scratch, `daemon-${process.hrtime.bigint()}.yaml`);
  await writeFile(config, JSON.stringify({
    api: { url: emulator.url }, listen: '127.0.0.1:0', 'state-dir': path.join(scratch, 'daemon-state'),
    sources: [{ name: 'bench', organization: ORG, path: repo, schedule: '0 0 1 1 *' }],
  }));
  const rssFile = path.join(scratch, `rss-${process.hrtime.bigint()}`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PRELOAD, CLI, '--config', config], {
    env: { PATH: process.env['PATH'], API_TOKEN: emulator.token, LOG_LEVEL: 'info', PPS_BENCH_RSS_FILE: rssFile, ...CHILD_ENV },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-200_000)));
  const sampled = sampleHwm(child.pid);
  let crashed: string | null = null;
  const exited = new Promise<number | null>((resolve) => child.on('exit', (c, s) => {
    crashed = `the daemon ended (${s ?? `exit ${c}`}): ${lastLine(stderr)}`;
    resolve(c);
  }));
  let outcome = '';
  try {
    const origin = await until(async () => /"listen":"(http:[^"]+)"/.exec(stderr)?.[1] ?? (crashed === null ? undefined : 'crashed'), 30_000, 20);
    if (origin === 'crashed') throw new Error('crashed');
    const status = await until(async () => {
      if (crashed !== null) return { result: 'crashed', error: crashed };
      const source = ((await (await fetch(`${origin}/status`)).json()) as { sources: Array<{ result: string | null; error: string | null; running: boolean }> }).sources[0];
      return source !== undefined && source.result !== null && !source.running ? source : undefined;
    }, 120_000, 50);
    outcome = `${status.result}${status.error === null ? '' : `: ${status.error.slice(0, 160)}`}`;
  } catch (error) {
    outcome = crashed ?? `no pass end seen: ${(error as Error).message}; ${lastLine(stderr)}`;
  }
  const seconds = (performance.now() - started) / 1000;
  child.kill('SIGTERM');
  await exited;
  const peakMiB = Math.max(Number(await readFile(rssFile, 'utf8').catch(() => '0')), sampled.stop()) / 1024;
  return { peakMiB, seconds, outcome };
}

/** The process's peak RSS (VmHWM, KiB) as last seen while it ran, polled every 100 ms: a process that crashes writes no figure of its own. */
function sampleHwm(pid: number | undefined): { stop(): number } {
  let peak = 0;
  const sample = () => {
    try {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (hwm) peak = Math.max(peak, Number(hwm[1]));
    } catch {
      // Ended, or not Linux.
    }
  };
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter((l) => l.trim() !== '');
  return (lines[lines.length - 1] ?? '').slice(0, 200);
}

await main();
