/**
 * A real etcd for the leader-election suites: Debian's `etcd-server` (`.ci/run` installs it), started on free
 * loopback ports with a temporary data dir, stopped when the test ends. Without etcd on PATH the suites fail, saying so.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { tempTree } from './temp-tree.js';
import { waitFor } from './wait.js';

export interface RunningEtcd {
  /** `http://127.0.0.1:PORT` */
  endpoint: string;
  /** Stops etcd (SIGTERM) and waits for its exit; the data dir stays. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data dir, and waits until it answers. */
  start(): Promise<void>;
  /** etcd's output so far. */
  output(): string;
}

/** Fails when etcd is not installed: the leader-election tests run against a real one and are never skipped. */
export function requireEtcd(): void {
  if (spawnSync('etcd', ['--version'], { stdio: 'ignore' }).error !== undefined) {
    throw new Error('etcd is not on PATH: install it (apt-get install -y etcd-server, as .ci/run does); the leader-election tests run against a real etcd');
  }
}

export async function startEtcd(t: TestContext): Promise<RunningEtcd> {
  requireEtcd();
  const dir = await tempTree(t, {}, 'pps-etcd-');
  const [client, peer] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${client}`;
  const peerUrl = `http://127.0.0.1:${peer}`;
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let output = '';
  const args = [
    '--name', 'test', '--data-dir', path.join(dir, 'data'),
    '--listen-client-urls', endpoint, '--advertise-client-urls', endpoint,
    '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl, '--initial-cluster', `test=${peerUrl}`,
    '--log-level', 'error',
  ];
  async function start(): Promise<void> {
    const started = spawn('etcd', args, { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
    child = started;
    started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    await waitFor('etcd to answer', async () => {
      if (started.exitCode !== null) throw new Error(`etcd exited with ${started.exitCode}: ${output}`);
      const res = await fetch(`${endpoint}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('ping').toString('base64') }) });
      return res.ok ? true : undefined;
    }, 30_000);
  }
  async function stop(): Promise<void> {
    const running = child;
    if (running === null || running.exitCode !== null || running.signalCode !== null) return;
    running.kill('SIGTERM');
    await exited;
  }
  t.after(async () => {
    const running = child;
    if (running !== null && running.exitCode === null && running.signalCode === null) {
      running.kill('SIGKILL');
      await exited;
    }
  });
  await start();
  return { endpoint, stop, start, output: () => output };
}

/** A port free now on the loopback interface. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
