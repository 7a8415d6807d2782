/**
 * A versioned set at each cap of the declared repo, read by the daemon (the built CLI, `npm run build` first) in its
 * start-up pass against the emulator: the largest folder the caps allow (a folder of text files that fills the tar
 * estimate, whose gzip passes the archive cap, so the packing runs to its end), the most files they allow (one byte
 * each) and the largest config file they allow (`policy` blocks up to the HCL parser's cap, all naming one file).
 * Prints, for each, the daemon's peak RSS (VmHWM: the HCL worker's memory included), the longest stall of its event
 * loop once it listens (its start-up pass starts then), the slowest answer of /healthz asked every 100 ms throughout
 * the pass, and how long the pass took. A local source: the daemon's watch of the folder starts before it listens.
 *
 *   node --import tsx bench/set-archive-limits.ts
 *
 * PPS_CLI names another build of the command line (its dist/cli.js) and BENCH_FOLDER_BYTES, BENCH_FILES and
 * BENCH_CONFIG_BYTES other sizes: how the figures of the code before these caps were taken. BENCH_ONLY runs the
 * scenarios whose name starts with it (`largest folder`, `most files`, `largest config`); BENCH_NODE_ARGS adds
 * arguments to the daemon's node (`--cpu-prof`, say).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { MAX_SET_FILES, MAX_SET_TAR_BYTES } from '../src/declared/index.js';
import { startEmulator } from '../src/emulator/index.js';
import { MAX_HCL_BYTES } from '../src/hcl.js';
import { until } from './lib/until.js';

const CLI = path.resolve(process.env['PPS_CLI'] ?? 'dist/cli.js');
const FOLDER_BYTES = Number(process.env['BENCH_FOLDER_BYTES'] ?? MAX_SET_TAR_BYTES);
const FILES = Number(process.env['BENCH_FILES'] ?? MAX_SET_FILES);
const CONFIG_BYTES = Number(process.env['BENCH_CONFIG_BYTES'] ?? MAX_HCL_BYTES);
const ORG = 'org-limits';
const NATIVE = 'main = rule { true }\n';
const here = path.dirname(new URL(import.meta.url).pathname);

interface Scenario { name: string; write(folder: string): void }

const policyBlock = (i: number) => `policy "p${i}" {\n  source = "./p.sentinel"\n  enforcement_level = "advisory"\n}\n`;

const scenarios: Scenario[] = [
  {
    name: `largest folder (${(FOLDER_BYTES / 2 ** 20).toFixed(0)} MiB of tar)`,
    write(folder) {
      writeFileSync(path.join(folder, 'sentinel.hcl'), policyBlock(0));
      writeFileSync(path.join(folder, 'p.sentinel'), NATIVE);
      const fileBytes = 2 ** 20;
      // Each 1 MiB file takes 2049 blocks of the estimate; base64 of random bytes compresses to about 3/4.
      const count = Math.floor((FOLDER_BYTES - 4 * 512) / (fileBytes + 512));
      mkdirSync(path.join(folder, 'vendor'));
      for (let i = 0; i < count; i += 1) writeFileSync(path.join(folder, 'vendor', `f${i}.txt`), randomBytes((fileBytes * 3) / 4).toString('base64'));
    },
  },
  {
    name: `most files (${FILES} of one byte)`,
    write(folder) {
      writeFileSync(path.join(folder, 'sentinel.hcl'), policyBlock(0));
      writeFileSync(path.join(folder, 'p.sentinel'), NATIVE);
      for (let d = 0; d * 1000 < FILES - 2; d += 1) {
        mkdirSync(path.join(folder, `d${d}`));
        for (let i = d * 1000; i < Math.min((d + 1) * 1000, FILES - 2); i += 1) writeFileSync(path.join(folder, `d${d}`, `f${i}`), 'x');
      }
    },
  },
  {
    name: `largest config file (${(CONFIG_BYTES / 1024).toFixed(0)} KiB of sentinel.hcl)`,
    write(folder) {
      let text = '';
      for (let i = 0; text.length + policyBlock(i).length <= CONFIG_BYTES; i += 1) text += policyBlock(i);
      writeFileSync(path.join(folder, 'sentinel.hcl'), text);
      writeFileSync(path.join(folder, 'p.sentinel'), NATIVE);
    },
  },
];


async function run(scenario: Scenario): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pps-bench-limits-'));
  const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token-limits-0001', rateLimit: 0, organizations: [{ name: ORG }] } });
  const folder = path.join(root, 'repo/policy-sets/big');
  mkdirSync(folder, { recursive: true });
  scenario.write(folder);
  const config = path.join(root, 'config.yaml');
  writeFileSync(config, stringify({
    api: { url: emulator.url },
    sources: [{ name: 'bench', organization: ORG, path: path.join(root, 'repo'), schedule: '0 0 1 1 *' }],
    listen: '127.0.0.1:0',
    'state-dir': path.join(root, 'state'),
  }));
  const files = { rss: path.join(root, 'rss'), stall: path.join(root, 'stall') };
  let stderr = '';
  const child = spawn(process.execPath, [...(process.env['BENCH_NODE_ARGS']?.split(' ') ?? []), '--import', path.join(here, 'lib/peak-rss.mjs'), '--import', path.join(here, 'lib/loop-stall.mjs'), CLI, '--config', config], {
    env: { PATH: process.env['PATH'], API_TOKEN: emulator.token, PPS_BENCH_RSS_FILE: files.rss, PPS_BENCH_STALL_FILE: files.stall },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  try {
    const origin = await until(async () => /"listen":"(http:[^"]+)"/.exec(stderr)?.[1], 600_000);
    child.kill('SIGUSR2');
    const started = performance.now();
    let slowest = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        const sent = performance.now();
        await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(30_000) }).then((r) => r.arrayBuffer(), () => undefined);
        slowest = Math.max(slowest, performance.now() - sent);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const pass = await until(async () => {
      const status = (await (await fetch(`${origin}/status`)).json()) as { sources: Array<{ lastPass: { result: string; errors: string[] } | null }> };
      return status.sources[0]?.lastPass ?? undefined;
    }, 600_000);
    const seconds = (performance.now() - started) / 1000;
    probing = false;
    await probe;
    child.kill('SIGUSR2');
    await until(async () => (readFileSync(files.stall, 'utf8') === '' ? undefined : true), 60_000);
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    const peakMib = Number(readFileSync(files.rss, 'utf8')) / 1024;
    const stallMs = Number(readFileSync(files.stall, 'utf8'));
    const outcome = pass.result + (pass.errors.length > 0 ? `: ${pass.errors[0]?.slice(0, 110)}` : '');
    console.log(`${scenario.name}: peak RSS ${peakMib.toFixed(0)} MiB, longest event-loop stall ${stallMs} ms, slowest /healthz ${slowest.toFixed(0)} ms, pass ${seconds.toFixed(1)} s (${outcome})`);
  } catch (error) {
    process.stderr.write(stderr.split('\n').slice(-5).join('\n'));
    throw error;
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await emulator.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const only = process.env['BENCH_ONLY'];
console.log(`${CLI}`);
for (const scenario of scenarios) if (only === undefined || scenario.name.startsWith(only)) await run(scenario);
