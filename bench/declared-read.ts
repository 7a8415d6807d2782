/**
 * Reading declared repos. Each corpus (bench/lib/corpus.ts says which), then 10,000 generated policies: the built
 * CLI's `--validate` wall time (target ≤ 1.2 s), a cold read in this process, a warm re-read with the daemon's
 * declared cache (unchanged files are not parsed again), and a warm daemon-style pass against the emulator (rate
 * limit off) whose cost should be about its list requests (target ≤ 0.5 s plus those).
 * Run: npm run build && node --expose-gc --import tsx bench/declared-read.ts [corpus folder]
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../src/api/client.js';
import type { SourceConfig } from '../src/config/types.js';
import { createDeclaredCache, readDeclared } from '../src/declared/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { silentLogger } from '../src/logger.js';
import { createCodeCache, runPass } from '../src/reconcile.js';
import { findCorpus } from './lib/corpus.js';
import { writePolicies } from './lib/generate.js';

const RUNS = 5;
const GENERATED = 10_000;
const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const CPU_TIME = fileURLToPath(new URL('./lib/cpu-time.mjs', import.meta.url));
const ORG = 'bench-org';

const gc = (globalThis as { gc?: () => void }).gc;
const collect = gc ?? ((): void => undefined);

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await fn();
  return { ms: performance.now() - started, value };
}

/** Wall and CPU time of `fn` in this process. */
async function timedCpu<T>(fn: () => Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const cpu = process.cpuUsage();
  const { ms, value } = await timed(fn);
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, value };
}

async function corpora(): Promise<void> {
  const corpus = findCorpus(process.argv[2]);
  console.log(`${RUNS} runs each${gc ? '' : ' (run with --expose-gc for steadier heap figures)'}`);
  for (const name of corpus.names) {
    const times: number[] = [];
    let heapDelta = 0;
    let count = 0;
    for (let run = 0; run < RUNS; run += 1) {
      collect();
      const heapBefore = process.memoryUsage().heapUsed;
      const read = await timed(() => readDeclared(path.join(corpus.root, name)));
      times.push(read.ms);
      heapDelta = Math.max(heapDelta, process.memoryUsage().heapUsed - heapBefore);
      count = read.value.policies.length;
    }
    console.log(
      `${name.padEnd(18)} ${String(count).padStart(4)} policies  first ${times[0]?.toFixed(1)} ms  ` +
        `median ${median(times).toFixed(1)} ms  heap +${megabytes(heapDelta)} (max over runs)`,
    );
  }
}

async function generated(dir: string): Promise<void> {
  await writePolicies(dir, GENERATED);
  console.log(`\n${GENERATED} generated policies`);

  const walls: number[] = [];
  const cpus: number[] = [];
  const cpuFile = path.join(path.dirname(dir), `${path.basename(dir)}-cpu`);
  for (let run = 0; run < 3; run += 1) {
    const started = performance.now();
    const result = spawnSync(process.execPath, ['--import', CPU_TIME, CLI, '--validate', '--source-dir', dir], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', PPS_BENCH_CPU_FILE: cpuFile },
    });
    walls.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`--validate exited ${result.status}: ${result.stdout}${result.stderr}`);
    cpus.push(Number(await readFile(cpuFile, 'utf8')));
  }
  await rm(cpuFile, { force: true });
  console.log(
    `  --validate (built CLI)             median ${(median(walls) / 1000).toFixed(2)} s wall, ${(median(cpus) / 1000).toFixed(2)} s CPU of 3` +
      '   target ≤ 1.2 s wall on an idle machine',
  );

  const cold = await timedCpu(() => readDeclared(dir));
  console.log(`  cold read in process               ${cold.ms.toFixed(0)} ms wall, ${cold.cpuMs.toFixed(0)} ms CPU`);
  const cache = createDeclaredCache();
  await readDeclared(dir, { cache });
  const warm: Array<{ ms: number; cpuMs: number }> = [];
  for (let run = 0; run < RUNS; run += 1) warm.push(await timedCpu(() => readDeclared(dir, { cache })));
  console.log(
    `  warm re-read (declared cache)      median ${median(warm.map((w) => w.ms)).toFixed(0)} ms wall, ` +
      `${median(warm.map((w) => w.cpuMs)).toFixed(0)} ms CPU of ${RUNS}`,
  );

  const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token', rateLimit: 0, organizations: [{ name: ORG }] } });
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger(), concurrency: 16 });
  const source: SourceConfig = {
    name: 'bench', organization: ORG, path: dir, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
    maxDeletes: 10, allowEmpty: false, maxAgentPools: 1, passTimeoutSeconds: 600, adopt: false,
  };
  const codeCache = createCodeCache();
  const declaredCache = createDeclaredCache();
  const pass = () => runPass({ source, dir, revision: null, api, logger: silentLogger(), mode: 'apply', codeCache, declaredCache, concurrency: 16 });
  try {
    const apply = await timed(pass);
    if (!apply.value.ok) throw new Error('the first pass failed');
    console.log(`  first pass (creates and uploads)   ${(apply.ms / 1000).toFixed(1)} s`);
    const before = api.stats().requests;
    const warmPass: Array<{ ms: number; cpuMs: number }> = [];
    for (let run = 0; run < 3; run += 1) warmPass.push(await timedCpu(pass));
    const requests = (api.stats().requests - before) / 3;
    const listOnly = await timedCpu(() => api.listPolicies(ORG));
    // The emulator answers in this process, so its CPU is counted in both figures.
    console.log(
      `  warm pass (daemon caches)          median ${median(warmPass.map((w) => w.ms)).toFixed(0)} ms wall, ` +
        `${median(warmPass.map((w) => w.cpuMs)).toFixed(0)} ms CPU of 3, ${requests} requests; the policy list alone ` +
        `${listOnly.ms.toFixed(0)} ms wall, ${listOnly.cpuMs.toFixed(0)} ms CPU   target ≤ 500 ms plus the list requests`,
    );
  } finally {
    await api.close();
    await emulator.close();
  }
}

await corpora();
const dir = await mkdtemp(path.join(tmpdir(), 'pps-declared-read-'));
try {
  await generated(dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
