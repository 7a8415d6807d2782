/** A real etcd for the leader-election benchmarks (Debian's etcd-server on PATH), on free loopback ports, its data under `dir`. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

export interface BenchEtcd {
  endpoint: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Starts etcd and resolves once it answers a read; exits the benchmark, saying what to install, when it is missing. */
export async function startBenchEtcd(dir: string): Promise<BenchEtcd> {
  const [client, peer] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${client}`;
  const child = spawn('etcd', ['--name', 'bench', '--data-dir', path.join(dir, 'etcd'), '--listen-client-urls', endpoint, '--advertise-client-urls', endpoint,
    '--listen-peer-urls', `http://127.0.0.1:${peer}`, '--initial-advertise-peer-urls', `http://127.0.0.1:${peer}`, '--initial-cluster', `bench=http://127.0.0.1:${peer}`, '--log-level', 'error'], { stdio: 'ignore' });
  child.once('error', () => {
    console.error('etcd is not on PATH: apt-get install -y etcd-server');
    process.exit(1);
  });
  const deadline = performance.now() + 60_000;
  for (;;) {
    const up = await fetch(`${endpoint}/v3/kv/range`, { method: 'POST', body: '{"key":"eA=="}' }).then((r) => r.ok, () => false);
    if (up) break;
    if (performance.now() > deadline) throw new Error(`etcd did not answer at ${endpoint} within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    endpoint,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
