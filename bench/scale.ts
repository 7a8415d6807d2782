/**
 * Scale: 1,000, 10,000 and 20,000 generated policies (SCALE_SIZES=1000,10000 to choose), then 20 policies of
 * 9.9 MB (SCALE_BIG=0 to skip), then the daemon over 10,000 policies (SCALE_DAEMON=1000,20000 for other sizes, 0 to
 * skip): as the image runs it, with no flags under a memory limit (when a cgroup can be made), and with no flags at
 * all. The built CLI runs as a child process against the emulator (rate limit off) in this process; peak RSS is the
 * child's.
 * Run: npm run build && node --import tsx bench/scale.ts
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { writePolicies } from './lib/generate.js';
import { imageNodeOptions } from './lib/image-node-options.js';
import { memoryCgroup, type MemoryCgroup } from './lib/memory-cgroup.js';

const ORG = 'scale-org';
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const PRELOAD = fileURLToPath(new URL('./lib/peak-rss.mjs', import.meta.url));
const SIZES = (process.env['SCALE_SIZES'] ?? '1000,10000,20000').split(',').map(Number).filter((n) => n > 0);
const BIG = { count: 20, bytes: 9_900_000 };
const DAEMON_SIZES = (process.env['SCALE_DAEMON'] ?? '10000').split(',').map(Number).filter((n) => n > 0);

interface Run {
  code: number | null;
  seconds: number;
  requests: number;
  rssMb: number;
  stdoutBytes: number;
  stderr: string;
}

const work = await mkdtemp(path.join(tmpdir(), 'pps-scale-'));

async function requestCount(emulator: RunningEmulator, clear: boolean): Promise<number> {
  const call = (method: string) =>
    fetch(`${emulator.origin}/_emulator/requests`, { method, headers: { authorization: `Bearer ${emulator.token}` } });
  const { requests } = (await (await call('GET')).json()) as { requests: unknown[] };
  if (clear) await call('DELETE');
  return requests.length;
}

/** One run of the built CLI; requests are those the emulator saw, download redirects included. */
async function cli(emulator: RunningEmulator, args: string[], stateDir: string): Promise<Run> {
  await requestCount(emulator, true);
  const rssFile = path.join(work, `rss-${Date.now()}`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', PRELOAD, CLI, ...args, '--api-url', emulator.url], {
    env: { PATH: process.env['PATH'] ?? '', API_TOKEN: emulator.token, STATE_DIR: stateDir, LOG_LEVEL: 'warn', NO_COLOR: '1', PPS_BENCH_RSS_FILE: rssFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdoutBytes = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdoutBytes += chunk.length));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const seconds = (performance.now() - started) / 1000;
  const rssMb = Number(await readFile(rssFile, 'utf8').catch(() => '0')) / 1024;
  return { code, seconds, requests: await requestCount(emulator, true), rssMb, stdoutBytes, stderr };
}

function check(label: string, run: Run, expected: number[]): Run {
  if (!expected.includes(run.code ?? -1)) console.log(`  ! ${label} exited ${run.code}: ${run.stderr.slice(-2000)}`);
  return run;
}

const HEADER = 'policies | validate s | dry-run (empty org) s / peak MB | reconcile s / requests / peak MB | cold no-op s / requests / peak MB | warm no-op s / requests / peak MB';
const rows: string[][] = [];
const row = (...cells: Array<string | number>) => {
  rows.push(cells.map(String));
  console.log(`  ${cells.join(' | ')}`);
};
const s = (run: Run) => run.seconds.toFixed(1);
const mb = (run: Run) => run.rssMb.toFixed(0);

async function scaleCase(count: number, bytes?: number): Promise<void> {
  const dir = path.join(work, `repo-${count}-${bytes ?? 0}`);
  await writePolicies(dir, count, bytes);
  const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token', rateLimit: 0, organizations: [{ name: ORG }] } });
  const label = bytes === undefined ? `${count}` : `${count} x ${(bytes / 1e6).toFixed(1)} MB`;
  try {
    const flags = ['--source-dir', dir, '--organization', ORG];
    const state = path.join(dir, '..', `state-${count}-${bytes ?? 0}`);
    const validate = check('validate', await cli(emulator, ['--validate', ...flags], state), [0]);
    const dryRun = check('dry-run', await cli(emulator, ['--dry-run', ...flags, '--no-cache'], state), [0]);
    const apply = check('reconcile', await cli(emulator, ['--reconcile', ...flags, '--no-cache'], state), [0]);
    const cold = check('cold no-op', await cli(emulator, ['--dry-run', ...flags], state), [0]);
    const warm = check('warm no-op', await cli(emulator, ['--dry-run', ...flags], state), [0]);
    const pages = Math.ceil(count / 100) + 1;
    row(label, s(validate), `${s(dryRun)} / ${mb(dryRun)}`, `${s(apply)} / ${apply.requests} / ${mb(apply)}`,
      `${s(cold)} / ${cold.requests} / ${mb(cold)}`, `${s(warm)} / ${warm.requests} (pages+1 = ${pages}) / ${mb(warm)}`);
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

interface DaemonVariant {
  label: string;
  nodeOptions: string;
  cgroup: MemoryCgroup | null;
}

/**
 * The ways the daemon is run: as the image runs it; with no flags in a memory cgroup of DAEMON_MEMORY_LIMIT_MB
 * (default 300; needs root and a cgroup memory controller), as a pod's limit is; and with no flags and no limit.
 */
function daemonVariants(): DaemonVariant[] {
  const limitMb = Number(process.env['DAEMON_MEMORY_LIMIT_MB'] ?? 300);
  const cgroup = memoryCgroup(`pps-bench-${process.pid}`, limitMb * 1024 * 1024);
  const image = imageNodeOptions('DAEMON_NODE_OPTIONS');
  return [
    { label: `as the image runs it (NODE_OPTIONS=${image})`, nodeOptions: image, cgroup: null },
    ...(cgroup === null ? [] : [{ label: `no flags, memory limit ${limitMb} MiB (as in a pod)`, nodeOptions: '', cgroup }]),
    { label: 'no flags, no memory limit', nodeOptions: '', cgroup: null },
  ];
}

/** The daemon over `count` policies already in the organization: the start-up pass (cold) and one more (warm); peak RSS from /proc. */
async function daemonCase(count: number, variants: DaemonVariant[]): Promise<void> {
  const dir = path.join(work, `daemon-${count}`);
  await writePolicies(dir, count);
  const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token', rateLimit: 0, organizations: [{ name: ORG }] } });
  try {
    check('daemon seed', await cli(emulator, ['--reconcile', '--source-dir', dir, '--organization', ORG, '--no-cache'], path.join(work, 'seed-state')), [0]);
    console.log(`\ndaemon over ${count} policies: a start-up pass (cold code cache), then one more`);
    for (const [index, variant] of variants.entries()) {
      const config = path.join(work, `daemon-${count}-${index}.yaml`);
      await writeFile(config, stringify({
        api: { url: emulator.url, 'rate-limit': 'auto', concurrency: 8 },
        sources: [{ name: 'default', organization: ORG, path: dir, schedule: '0 0 1 1 *' }],
        listen: '127.0.0.1:0',
        'state-dir': path.join(work, `daemon-state-${count}-${index}`),
      }));
      const argv = [process.execPath, CLI, '--config', config];
      const { command, args } = variant.cgroup?.wrap(argv) ?? { command: argv[0]!, args: argv.slice(1) };
      const child = spawn(command, args, {
        env: { PATH: process.env['PATH'] ?? '', API_TOKEN: emulator.token, LOG_LEVEL: 'info', NODE_OPTIONS: variant.nodeOptions },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let log = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
      // Passes counted in /status's history: a pass that changes nothing, after the first, is logged at debug level only.
      const passes = async (): Promise<number> => {
        // The one line that carries a `listen` URL: "daemon listening".
        const origin = /"listen":"(http:[^"]+)"/.exec(log)?.[1];
        if (origin === undefined) return 0;
        const status = (await (await fetch(`${origin}/status?history=1`)).json()) as { sources: { history?: { finishedAt: string | null }[] }[] };
        return (status.sources[0]?.history ?? []).filter((pass) => pass.finishedAt !== null).length;
      };
      const finished = async (n: number) => {
        const started = performance.now();
        while ((await passes()) < n) {
          if (child.exitCode !== null || child.signalCode !== null) {
            throw new Error(`the daemon exited (${child.exitCode ?? child.signalCode}${variant.cgroup?.oomKilled() === true ? ', killed for memory' : ''}): ${log.slice(-2000)}`);
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        return (performance.now() - started) / 1000;
      };
      await requestCount(emulator, true);
      const coldSeconds = await finished(1);
      const coldRequests = await requestCount(emulator, true);
      const afterCold = peakRss(child.pid!);
      await utimes(path.join(dir, 'policies', 'group-0000', 'policy-000000.native'), new Date(), new Date());
      const warmSeconds = await finished(2);
      const warmRequests = await requestCount(emulator, true);
      const peak = peakRss(child.pid!);
      child.kill('SIGTERM');
      await new Promise((r) => child.on('close', r));
      console.log(`  ${variant.label}: start-up pass ${coldSeconds.toFixed(1)} s, ${coldRequests} requests, peak RSS ${afterCold.toFixed(0)} MB; ` +
        `next pass ${warmSeconds.toFixed(1)} s, ${warmRequests} requests; peak RSS ${peak.toFixed(0)} MB`);
    }
  } finally {
    await emulator.close();
  }
}

function peakRss(pid: number): number {
  return Number(/VmHWM:\s+(\d+)/.exec(readFileSyncSafe(`/proc/${pid}/status`))?.[1] ?? 0) / 1024;
}

function readFileSyncSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

try {
  for (const count of SIZES) await scaleCase(count);
  if (process.env['SCALE_BIG'] !== '0') await scaleCase(BIG.count, BIG.bytes);
  console.log(`\n${HEADER}`);
  for (const cells of rows) console.log(cells.join(' | '));
  const variants = daemonVariants();
  try {
    for (const count of DAEMON_SIZES) await daemonCase(count, variants);
  } finally {
    for (const variant of variants) variant.cgroup?.remove();
  }
} finally {
  await rm(work, { recursive: true, force: true });
}
