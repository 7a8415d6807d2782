/**
 * Emulator CPU for a no-change pass (list every policy, download every policy's code) at growing numbers
 * of policies. The emulator runs in a child process whose CPU time is read from /proc, so the client's
 * own work is not counted. The figure to watch is CPU per policy: flat means the cost grows linearly.
 * Run: node --import tsx bench/emulator-scale.ts [sizes=2500,5000,10000,20000]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../src/api/client.js';
import { silentLogger } from '../src/logger.js';

const ORG = 'scale-org';
const CLI = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
/** Clock ticks per second of /proc/<pid>/stat on Linux. */
const TICKS_PER_SECOND = 100;

interface Child {
  process: ChildProcess;
  url: string;
  token: string;
}

async function startChild(dir: string): Promise<Child> {
  const seedFile = join(dir, 'seed.yaml');
  await writeFile(seedFile, `token: scale-token\nrate-limit: 0\norganizations: [{ name: ${ORG} }]\n`);
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, '--emulator', '--port', '0', '--emulator-seed', seedFile], {
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'error' },
  });
  const line = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const end = text.indexOf('\n');
      if (end >= 0) resolve(text.slice(0, end));
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });
  const { url, token } = JSON.parse(line) as { url: string; token: string };
  return { process: child, url, token };
}

/** User plus system CPU of a process, in milliseconds. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
}

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

async function measure(size: number, dir: string): Promise<Record<string, number>> {
  const child = await startChild(dir);
  const client = new ApiClient({ baseUrl: child.url, token: child.token, logger: silentLogger(), concurrency: 16 });
  try {
    const code = Buffer.from('main = rule { true }\n');
    const names = Array.from({ length: size }, (_, i) => `policy-${String(i).padStart(6, '0')}`);
    await inParallel(names, 16, async (name) => {
      const policy = await client.createPolicy(ORG, { name, kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [] });
      await client.uploadPolicy(policy.id, code);
    });
    const before = cpuMs(child.process.pid!);
    const started = performance.now();
    const policies = await client.listPolicies(ORG);
    await inParallel(policies, 16, async (policy) => void (await client.downloadPolicy(policy)));
    const cpu = cpuMs(child.process.pid!) - before;
    return {
      policies: policies.length,
      emulatorCpuMs: Math.round(cpu),
      cpuPerPolicyUs: Math.round((cpu * 1000) / policies.length),
      passSeconds: Number(((performance.now() - started) / 1000).toFixed(2)),
    };
  } finally {
    await client.close();
    child.process.kill('SIGTERM');
  }
}

const sizes = (process.argv[2] ?? '2500,5000,10000,20000').split(',').map(Number);
const dir = await mkdtemp(join(tmpdir(), 'pps-scale-'));
try {
  for (const size of sizes) console.log(JSON.stringify(await measure(size, dir)));
} finally {
  await rm(dir, { recursive: true, force: true });
}
