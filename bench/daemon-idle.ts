/**
 * The daemon's footprint: idle RSS and CPU over ~20 s after the start-up pass, and the latency from a signed
 * webhook to the pushed commit being applied. Runs the built CLI (`npm run build` first; `npm run bench` does)
 * against the emulator, with a git source in a temp repo.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { defaultSeed, startEmulator } from '../src/emulator/index.js';
import { until } from './lib/until.js';

const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 20);
const SECRET = 'bench-webhook-secret';
const root = mkdtempSync(path.join(os.tmpdir(), 'pps-bench-daemon-'));
const repo = path.join(root, 'repo');
const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();

function commit(description: string): string {
  writeFileSync(path.join(repo, 'policies/aws/require-mandatory-tags.yaml'), `description: ${description}\nenforcement-level: hard-mandatory\n`);
  git('add', '--all');
  git('commit', '--quiet', '-m', description);
  return git('rev-parse', 'HEAD');
}

function sampleProcess(pid: number): { rssMb: number; cpuTicks: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { rssMb: rssKb / 1024, cpuTicks: Number(fields[11] ?? 0) + Number(fields[12] ?? 0) };
}


const emulator = await startEmulator({ port: 0, seed: { ...defaultSeed(), rateLimit: 0 } });
mkdirSync(path.join(repo, 'policies'), { recursive: true });
git('init', '--quiet', '--initial-branch', 'main');
git('config', 'user.email', 'bench@example.com');
git('config', 'user.name', 'bench');
for (const f of readdirRecursive(path.resolve('examples/declared'))) {
  const target = path.join(repo, f.relative);
  mkdirSync(path.dirname(target), { recursive: true });
  writeFileSync(target, readFileSync(f.absolute));
}
commit('Tags are required.');
const configFile = path.join(root, 'config.yaml');
writeFileSync(configFile, stringify({
  api: { url: emulator.url },
  sources: [{ name: 'bench', organization: 'example-org', git: { url: repo, ref: 'main', path: '.' }, schedule: '0 0 1 1 *' }],
  listen: '127.0.0.1:0',
  'state-dir': path.join(root, 'state'),
}));
let stderr = '';
const child = spawn(process.execPath, ['dist/cli.js', '--config', configFile], {
  env: { PATH: process.env.PATH, API_TOKEN: emulator.token, WEBHOOK_SECRET: SECRET },
  stdio: ['ignore', 'ignore', 'pipe'],
});
child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
try {
  const origin = await until(async () => /"listen":"(http:[^"]+)"/.exec(stderr)?.[1], 20_000, 20);
  const status = async () => ((await (await fetch(`${origin}/status`)).json()) as { sources: { lastAppliedRevision: string | null }[] }).sources[0];
  await until(async () => ((await status())?.lastAppliedRevision ? true : undefined), 20_000, 20);
  const before = sampleProcess(child.pid ?? 0);
  const startedAt = process.hrtime.bigint();
  let peakRss = before.rssMb;
  for (let s = 0; s < IDLE_SECONDS; s += 1) {
    await new Promise((r) => setTimeout(r, 1000));
    peakRss = Math.max(peakRss, sampleProcess(child.pid ?? 0).rssMb);
  }
  const after = sampleProcess(child.pid ?? 0);
  const wallSeconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
  const cpuSeconds = (after.cpuTicks - before.cpuTicks) / 100;
  console.log(`idle RSS: ${after.rssMb.toFixed(1)} MB (peak ${peakRss.toFixed(1)} MB over ${wallSeconds.toFixed(0)} s)`);
  console.log(`idle CPU: ${cpuSeconds.toFixed(2)} s over ${wallSeconds.toFixed(0)} s (${((100 * cpuSeconds) / wallSeconds).toFixed(2)} % of one core)`);

  const latencies: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const sha = commit(`Revision ${i}.`);
    const body = JSON.stringify({ ref: 'refs/heads/main', after: sha, repository: { clone_url: repo } });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const sent = performance.now();
    const response = await fetch(`${origin}/webhook`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature } });
    if (response.status !== 202) throw new Error(`webhook answered ${response.status}`);
    await until(async () => ((await status())?.lastAppliedRevision === sha ? true : undefined), 20_000, 20);
    latencies.push(performance.now() - sent);
  }
  latencies.sort((a, b) => a - b);
  console.log(`webhook to applied: median ${latencies[2]?.toFixed(0)} ms, max ${latencies[4]?.toFixed(0)} ms (5 pushes, git fetch + full pass of ${countPolicies()} policies and 1 pool)`);
} catch (error) {
  process.stderr.write(stderr.split('\n').slice(-5).join('\n'));
  throw error;
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await emulator.close();
  rmSync(root, { recursive: true, force: true });
}

function countPolicies(): number {
  return readdirRecursive(path.join(repo, 'policies')).filter((f) => /\.(native|rego)$/.test(f.relative)).length;
}

function readdirRecursive(dir: string, base = dir): { relative: string; absolute: string }[] {
  return execFileSync('find', [dir, '-type', 'f'], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l !== '')
    .map((absolute) => ({ absolute, relative: path.relative(base, absolute) }));
}
