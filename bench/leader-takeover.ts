/**
 * Leader election: how long a standby takes to lead after the leader is SIGKILLed, and to apply a change made
 * meanwhile, with a 2 s lease (renew 1.5 s, retry 0.5 s) and client-go's proportions at lease 4 s (renew 3 s, retry
 * 1 s); and the memory of an idle standby. Two daemons (the committed bundle, as the image runs it)
 * against the emulator and a real etcd (Debian's etcd-server on PATH).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { defaultSeed, startEmulator } from '../src/emulator/index.js';
import { startBenchEtcd } from './lib/etcd.js';
import { until } from './lib/until.js';

const RUNS = Number(process.env.TAKEOVER_RUNS ?? 5);
const root = mkdtempSync(path.join(os.tmpdir(), 'pps-bench-leader-'));
/** What the image and `npm start` run. */
const cli = path.resolve('bundle/policy-pool-sync.mjs');


const etcd = await startBenchEtcd(root);
const { endpoint } = etcd;
const emulator = await startEmulator({ port: 0, seed: { ...defaultSeed(), rateLimit: 0 } });
const declared = path.join(root, 'declared');
mkdirSync(path.join(declared, 'policies'), { recursive: true });
const settings = path.join(declared, 'policies/require-tags.yaml');
writeFileSync(path.join(declared, 'policies/require-tags.native'), 'main = rule { true }\n');
writeFileSync(settings, 'enforcement-level: advisory\n');

interface Daemon { child: ChildProcess; origin: Promise<string>; stderr: () => string }

function start(config: string): Daemon {
  const child = spawn(process.execPath, [cli, '--config', config], { env: { PATH: process.env.PATH, API_TOKEN: emulator.token }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const origin = until(() => /"listen":"(http:[^"]+)","sources"/.exec(stderr)?.[1], 60_000, 10);
  return { child, origin, stderr: () => stderr };
}

async function leading(daemon: Daemon): Promise<boolean> {
  const body = (await (await fetch(`${await daemon.origin}/status`)).json()) as { leadership: { leading: boolean }; sources: { result: string | null }[] };
  return body.leadership.leading && body.sources[0]?.result === 'success';
}

async function level(): Promise<string | undefined> {
  const res = await fetch(`${emulator.url}/organizations/example-org/policies?page%5Bsize%5D=100`, { headers: { authorization: `Bearer ${emulator.token}` } });
  const body = (await res.json()) as { data: { attributes: { name: string; 'enforcement-level': string } }[] };
  return body.data.find((p) => p.attributes.name === 'require-tags')?.attributes['enforcement-level'];
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const seconds = (ms: number) => (ms / 1000).toFixed(2);
const standbyRss: number[] = [];

for (const [lease, renew, retry] of [['2s', '1500ms', '500ms'], ['4s', '3s', '1s']] as const) {
  const takeovers: number[] = [];
  const applied: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const config = path.join(root, `config-${lease}-${run}.yaml`);
    writeFileSync(config, stringify({
      api: { url: emulator.url }, listen: '127.0.0.1:0', 'state-dir': path.join(root, `state-${lease}-${run}`),
      sources: [{ name: 'bench', organization: 'example-org', path: declared, schedule: '0 0 1 1 *' }],
      'leader-election': { store: 'etcd', endpoints: [endpoint], 'lease-name': `bench-${lease}-${run}`, 'lease-duration': lease, 'renew-deadline': renew, 'retry-period': retry },
    }));
    const daemons = [start(config), start(config)];
    const leader = await until(async () => {
      const states = await Promise.all(daemons.map(leading));
      return states.filter(Boolean).length === 1 ? daemons[states.indexOf(true)] : undefined;
    }, 60_000, 10);
    const standby = daemons.find((d) => d !== leader)!;
    // Idle: a few retry periods after the leader's first pass.
    await new Promise((r) => setTimeout(r, 3_000));
    standbyRss.push(rssMb(standby.child.pid!));
    const want = run % 2 === 0 ? 'soft-mandatory' : 'advisory';
    const killedAt = performance.now();
    leader.child.kill('SIGKILL');
    writeFileSync(settings, `enforcement-level: ${want}\n`);
    await until(async () => ((await fetch(`${await standby.origin}/status`).then((r) => r.json()) as { leadership: { leading: boolean } }).leadership.leading ? true : undefined), 60_000, 10);
    takeovers.push(performance.now() - killedAt);
    await until(async () => ((await level()) === want ? true : undefined), 60_000, 10);
    applied.push(performance.now() - killedAt);
    standby.child.kill('SIGTERM');
    await new Promise((r) => standby.child.once('exit', r));
  }
  console.log(`lease ${lease}, renew ${renew}, retry ${retry}: SIGKILL to the standby leading: median ${seconds(median(takeovers))} s (min ${seconds(Math.min(...takeovers))}, max ${seconds(Math.max(...takeovers))}); to the change applied: median ${seconds(median(applied))} s (max ${seconds(Math.max(...applied))}), ${RUNS} runs`);
}
console.log(`idle standby RSS: median ${median(standbyRss).toFixed(1)} MB (min ${Math.min(...standbyRss).toFixed(1)}, max ${Math.max(...standbyRss).toFixed(1)}), ${standbyRss.length} samples`);
await emulator.close();
await etcd.stop();
rmSync(root, { recursive: true, force: true });
