/**
 * A fleet on one daemon: for N = 10, 50, 200 and 500 (FLEET_SIZES=10,50 to choose), the emulator (a child process,
 * every limit off: `rate-limit: 0`) holds N organizations, and one daemon (the built CLI, with the image's
 * NODE_OPTIONS) syncs N local sources, one per organization, each declaring 20 policies (FLEET_POLICIES), one policy set (YAML) that
 * they all name and two agent pools (one with agent clean-up). Prints for each N:
 * - the time from spawn to listening, and to every source's first pass;
 * - the state dir's file writes of those first passes, per folder (code cache, evidence cache, history), and the most
 *   writes of one file under way at once (counted in the daemon's process by bench/lib/state-writes.mjs);
 * - the slowest /healthz answer from the moment the daemon listens until every first pass ended (asked every 10 ms);
 * - requests per idle tick per source, from the emulator's request log over the idle window (FLEET_IDLE_SECONDS,
 *   default 60, from FLEET_IDLE_OFFSET_SECONDS (30) past a minute, with the product's default one-minute schedule:
 *   one tick of each source), and the state writes in it;
 * - peak RSS (VmHWM) and idle RSS at the end of the window, and the idle CPU per minute;
 * - the inotify watches the daemon holds (its /proc/PID/fdinfo), at the end.
 * Run: npm run build && nice node --import tsx bench/fleet.ts
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { policyCode } from './lib/generate.js';
import { imageNodeOptions } from './lib/image-node-options.js';
import { until } from './lib/until.js';

const CLI = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const WRITES = fileURLToPath(new URL('./lib/state-writes.mjs', import.meta.url));
const SIZES = (process.env['FLEET_SIZES'] ?? '10,50,200,500').split(',').map(Number).filter((n) => n > 0);
const IDLE_SECONDS = Number(process.env['FLEET_IDLE_SECONDS'] ?? 60);
const IDLE_OFFSET_SECONDS = Number(process.env['FLEET_IDLE_OFFSET_SECONDS'] ?? 30);
const SCHEDULE = process.env['FLEET_SCHEDULE'] ?? '*/1 * * * *';
/** Policies per source (FLEET_POLICIES=20000 FLEET_SIZES=1 FLEET_IDLE_SECONDS=600: the one-organization memory case). */
const POLICIES = Number(process.env['FLEET_POLICIES'] ?? 20);
/** FLEET_EXISTING=1: the organizations hold the policies already (a one-shot reconcile makes them), and the daemon starts with no code cache: its start-up pass downloads every policy's code. */
const EXISTING = process.env['FLEET_EXISTING'] === '1';
const TOKEN = 'fleet-bench-token';
/** The daemon's NODE_OPTIONS: the image's, or FLEET_NODE_OPTIONS. */
const NODE_OPTIONS = imageNodeOptions('FLEET_NODE_OPTIONS');

const organization = (i: number) => `fleet-org-${String(i).padStart(4, '0')}`;

/** One source's repo: 20 policies naming the set `fleet`, the set, and two pools. */
async function writeSource(dir: string, index: number): Promise<void> {
  await mkdir(path.join(dir, 'policies'), { recursive: true });
  await mkdir(path.join(dir, 'policy-sets'), { recursive: true });
  await mkdir(path.join(dir, 'agent-pools'), { recursive: true });
  const writes: Array<Promise<void>> = [];
  // At most 100 policies a folder, as bench/lib/generate.ts writes them.
  for (let p = 0; p < POLICIES; p += 1) {
    const folder = path.join(dir, 'policies', `group-${String(Math.floor(p / 100)).padStart(3, '0')}`);
    if (p % 100 === 0) await mkdir(folder, { recursive: true });
    const name = `policy-${String(p).padStart(5, '0')}`;
    writes.push(writeFile(path.join(folder, `${name}.native`), policyCode(index * POLICIES + p)));
    writes.push(writeFile(path.join(folder, `${name}.yaml`), 'enforcement-level: advisory\npolicy-sets: [fleet]\n'));
    if (writes.length > 2000) await Promise.all(writes.splice(0));
  }
  writes.push(writeFile(path.join(dir, 'policy-sets', 'fleet.yaml'), 'description: the fleet benchmark set\nglobal: true\n'));
  writes.push(writeFile(path.join(dir, 'agent-pools', 'build.yaml'), 'organization-scoped: true\n'));
  writes.push(writeFile(path.join(dir, 'agent-pools', 'deploy.yaml'), 'organization-scoped: false\nagent-cleanup: { statuses: [exited, errored], after: 1h }\n'));
  await Promise.all(writes);
}

function lines(child: ChildProcess, stream: 'stdout' | 'stderr', onLine: (line: string) => void): void {
  const readable = child[stream];
  if (readable !== null) createInterface({ input: readable }).on('line', onLine);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

interface Sample {
  rssMb: number;
  peakMb: number;
  cpuTicks: number;
}

function sample(pid: number): Sample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024, cpuTicks: Number(fields[11] ?? 0) + Number(fields[12] ?? 0) };
}

/** The inotify watches the process holds, from its descriptors' fdinfo. */
function inotifyWatches(pid: number): number {
  let watches = 0;
  for (const fd of readdirSync(`/proc/${pid}/fdinfo`)) {
    try {
      watches += (readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').match(/^inotify wd:/gm) ?? []).length;
    } catch {
      // Closed meanwhile.
    }
  }
  return watches;
}

interface StateWrites {
  writes: Record<string, number>;
  files: Record<string, number>;
  mostAtOnce: number;
}

async function stateWrites(file: string): Promise<StateWrites> {
  return JSON.parse(await readFile(file, 'utf8').catch(() => '{"writes":{},"files":{},"mostAtOnce":0}')) as StateWrites;
}

const writesText = (w: StateWrites, before?: StateWrites) =>
  Object.keys(w.writes).sort().map((folder) => `${folder} ${(w.writes[folder] ?? 0) - (before?.writes[folder] ?? 0)}${before === undefined ? ` (${w.files[folder] ?? 0} files)` : ''}`).join(', ') || 'none';

async function fleet(size: number): Promise<void> {
  const work = await mkdtemp(path.join(tmpdir(), `pps-fleet-${size}-`));
  const children: ChildProcess[] = [];
  try {
    const seedFile = path.join(work, 'seed.yaml');
    await writeFile(seedFile, stringify({
      token: TOKEN, 'rate-limit': 0,
      organizations: Array.from({ length: size }, (_, i) => ({ name: organization(i), 'max-agent-pools': 2, 'policy-sets': [] })),
    }));
    const sources = [];
    for (let i = 0; i < size; i += 1) {
      const dir = path.join(work, 'repos', organization(i));
      await writeSource(dir, i);
      sources.push({ name: `source-${i}`, organization: organization(i), path: dir, schedule: SCHEDULE, 'max-agent-pools': 2 });
    }
    const emulator = spawn(process.execPath, [CLI, '--emulator', '--emulator-seed', seedFile], { stdio: ['ignore', 'pipe', 'inherit'], env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'error' } });
    children.push(emulator);
    const emulatorUrl = await new Promise<string>((resolve, reject) => {
      lines(emulator, 'stdout', (line) => {
        const url = /"url":"([^"]+)"/.exec(line)?.[1];
        if (url !== undefined) resolve(url);
      });
      emulator.once('exit', (code) => reject(new Error(`the emulator exited ${code}`)));
    });
    const control = `${emulatorUrl.replace(/\/api\/v2$/, '')}/_emulator/requests`;
    const requests = async (method: 'GET' | 'DELETE') => (await fetch(control, { method, headers: { authorization: `Bearer ${TOKEN}` } }));

    if (EXISTING) {
      for (const source of sources) {
        const seeded = spawn(process.execPath, [CLI, '--reconcile', '--source-dir', source.path, '--source', source.name, '--organization', source.organization, '--max-agent-pools', '2', '--no-cache', '--api-url', emulatorUrl], {
          env: { PATH: process.env['PATH'] ?? '', API_TOKEN: TOKEN, LOG_LEVEL: 'warn', STATE_DIR: path.join(work, 'seed-state') }, stdio: ['ignore', 'ignore', 'inherit'],
        });
        const code = await new Promise((resolve) => seeded.once('exit', resolve));
        if (code !== 0) throw new Error(`the reconcile that makes ${source.organization}'s policies exited ${String(code)}`);
      }
    }
    const stateDir = path.join(work, 'state');
    const configFile = path.join(work, 'config.yaml');
    await writeFile(configFile, stringify({ api: { url: emulatorUrl, 'rate-limit': 100_000 }, sources, listen: '127.0.0.1:0', 'state-dir': stateDir }));
    const writesFile = path.join(work, 'writes.json');
    // The benchmark's own fetch loads its client on first use (some 100 ms on a busy host): warm it on the emulator, so
    // the /healthz times below are the daemon's.
    await (await requests('GET')).arrayBuffer();
    const spawned = performance.now();
    const daemon = spawn(process.execPath, [...(process.env['FLEET_NODE_ARGS']?.split(' ') ?? []), '--import', WRITES, CLI, '--config', configFile], {
      env: {
        PATH: process.env['PATH'] ?? '', API_TOKEN: TOKEN, LOG_LEVEL: 'info', NO_COLOR: '1', NODE_OPTIONS,
        PPS_BENCH_STATE_DIR: stateDir, PPS_BENCH_WRITES_FILE: writesFile,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(daemon);
    const pid = daemon.pid ?? 0;
    let origin: string | null = null;
    let listenedAt = 0;
    const firstPass = new Map<string, number>();
    const failed = new Set<string>();
    const tail: string[] = [];
    lines(daemon, 'stderr', (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      if (origin === null) {
        const listen = /"listen":"(http:[^"]+)"/.exec(line)?.[1];
        if (listen !== undefined) {
          origin = listen;
          listenedAt = performance.now();
        }
      }
      const source = /"source":"([^"]+)"/.exec(line)?.[1];
      if (source === undefined) return;
      if (/"msg":"pass (finished|failed)"/.test(line) && !firstPass.has(source)) firstPass.set(source, performance.now());
      if (/"msg":"pass failed"/.test(line)) failed.add(source);
    });
    const exited = new Promise<never>((_, reject) => daemon.once('exit', (code) => reject(new Error(`the daemon exited ${code}: ${tail.join('\n')}`))));
    const listening = await Promise.race([until(() => origin ?? undefined, 120_000, 5), exited]);

    // /healthz, one request at a time, from the moment the daemon listens until every first pass ended.
    let slowest = 0;
    let slowestAt = 0;
    let firstAnswer = null as number | null;
    let asked = 0;
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const sent = performance.now();
        const response = await fetch(`${listening}/healthz`).catch(() => null);
        await response?.arrayBuffer();
        const took = performance.now() - sent;
        if (response?.ok === true) {
          firstAnswer ??= performance.now() - listenedAt;
          if (took > slowest) [slowest, slowestAt] = [took, sent - listenedAt];
          asked += 1;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    let peakDuringStart = 0;
    await Promise.race([until(() => {
      peakDuringStart = Math.max(peakDuringStart, sample(pid).rssMb);
      return firstPass.size >= size ? true : undefined;
    }, 1_800_000, 100), exited]);
    polling = false;
    await poller;
    // The daemon's own figure of its event loop (prom-client's monitor, since it started): what it held the loop, apart
    // from the time the host's other processes held the cores.
    const metrics = await (await fetch(`${listening}/metrics`)).text();
    const lag = (name: string) => Number(new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(metrics)?.[1] ?? NaN) * 1000;
    const allDone = Math.max(...firstPass.values());
    const firstPassSeconds = [...firstPass.values()].map((t) => (t - spawned) / 1000).sort((a, b) => a - b);
    // The writes the first passes asked for land shortly after they end.
    await new Promise((r) => setTimeout(r, 1500));
    const startWrites = await stateWrites(writesFile);

    // The idle window starts IDLE_OFFSET_SECONDS past a minute, once the tick's passes (jittered by at most 3 s) are
    // over, and lasts a minute: it holds one tick of each source with the one-minute schedule.
    const offsetMs = IDLE_OFFSET_SECONDS * 1000;
    const startAt = Math.ceil((Date.now() - offsetMs) / 60_000) * 60_000 + offsetMs;
    await new Promise((r) => setTimeout(r, Math.max(0, startAt - Date.now())));
    await requests('DELETE');
    const before = sample(pid);
    const idleStart = performance.now();
    let idleHigh = 0;
    let idleLow = Infinity;
    const idleEnd = performance.now() + IDLE_SECONDS * 1000;
    while (performance.now() < idleEnd) {
      await Promise.race([new Promise((r) => setTimeout(r, Math.min(2000, Math.max(0, idleEnd - performance.now())))), exited]);
      const rss = sample(pid).rssMb;
      idleHigh = Math.max(idleHigh, rss);
      idleLow = Math.min(idleLow, rss);
    }
    const after = sample(pid);
    const idleSeconds = (performance.now() - idleStart) / 1000;
    const { requests: logged } = (await (await requests('GET')).json()) as { requests: { method: string; path: string }[] };
    const ticks = logged.filter((r) => r.method === 'GET' && /^\/organizations\/[^/]+\/policies(\?|$)/.test(r.path) && !/page%5Bnumber%5D=([2-9]|\d\d)/.test(r.path)).length;
    const idleWrites = await stateWrites(writesFile);
    const byPath = new Map<string, number>();
    for (const r of logged) {
      const shape = `${r.method} ${r.path.replace(/fleet-org-\d+/, ':org').replace(/apool-[A-Za-z0-9]+/, ':pool').replace(/page%5Bnumber%5D=\d+&?/, '')}`;
      byPath.set(shape, (byPath.get(shape) ?? 0) + 1);
    }

    console.log(`\nN = ${size} sources (${size * POLICIES} policies), NODE_OPTIONS=${NODE_OPTIONS || '(none)'}`);
    console.log(`  listening ${((listenedAt - spawned) / 1000).toFixed(1)} s after spawn; first /healthz answer ${firstAnswer === null ? 'none' : `${firstAnswer.toFixed(0)} ms`} after listening`);
    console.log(`  first passes: all ended ${((allDone - spawned) / 1000).toFixed(1)} s after spawn (median ${firstPassSeconds[Math.floor(size / 2)]?.toFixed(1)} s)${failed.size > 0 ? `; ${failed.size} failed` : ''}`);
    console.log(`  state writes of the first passes: ${writesText(startWrites)}; most writes of one file at once: ${startWrites.mostAtOnce}`);
    console.log(`  slowest /healthz from listening to the last first pass: ${slowest.toFixed(0)} ms (asked ${(slowestAt / 1000).toFixed(2)} s after listening; ${asked} answers); the daemon's event loop delay: max ${lag('nodejs_eventloop_lag_max_seconds').toFixed(0)} ms, p99 ${lag('nodejs_eventloop_lag_p99_seconds').toFixed(0)} ms`);
    console.log(`  idle: ${ticks} ticks in ${idleSeconds.toFixed(0)} s, ${logged.length} requests: ${ticks === 0 ? '-' : (logged.length / ticks).toFixed(2)} per source per tick`);
    for (const [shape, n] of [...byPath].sort((a, b) => b[1] - a[1])) console.log(`    ${ticks === 0 ? n : (n / ticks).toFixed(2)} x ${shape}`);
    console.log(`  idle state writes: ${writesText(idleWrites, startWrites)}`);
    console.log(`  RSS: peak ${after.peakMb.toFixed(0)} MiB (${peakDuringStart.toFixed(0)} MiB sampled during the first passes), idle ${after.rssMb.toFixed(0)} MiB at the end (${idleLow.toFixed(0)} to ${idleHigh.toFixed(0)} MiB over the idle window, sampled every 2 s)`);
    console.log(`  idle CPU: ${(((after.cpuTicks - before.cpuTicks) / 100) * (60 / idleSeconds)).toFixed(2)} CPU-s per minute`);
    console.log(`  inotify watches: ${inotifyWatches(pid)}`);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await rm(work, { recursive: true, force: true });
  }
}

for (const size of SIZES) await fleet(size);
