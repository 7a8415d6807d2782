/**
 * Leader election when the lease record is deleted (an operator cleaning keys, etcd losing its data): two replicas
 * in this process on a real etcd (Debian's etcd-server on PATH), lease 2 s, renew 1.5 s, retry 250 ms. The record is
 * deleted 16 times at irregular moments, half of them within a retry period of a record's creation (before the other
 * replica can have read it), while both replicas are sampled every 5 ms. Prints the samples, how many had two
 * leaders (the goal: none), and how long the lease took to have a leader again after each deletion.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createElector, ETCD_KEY_PREFIX, etcdLeaseStore } from '../src/leader/index.js';
import { createLogger } from '../src/logger.js';
import { startBenchEtcd } from './lib/etcd.js';

const DELETIONS = Number(process.env.LEASE_DELETIONS ?? 16);
const root = mkdtempSync(path.join(os.tmpdir(), 'pps-bench-lease-'));
const logger = createLogger({ level: 'silent' });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const etcd = await startBenchEtcd(root);
const { endpoint } = etcd;

const key = Buffer.from(`${ETCD_KEY_PREFIX}bench`).toString('base64');
const kv = async (op: 'range' | 'deleterange'): Promise<{ count?: string; deleted?: string }> =>
  (await (await fetch(`${endpoint}/v3/kv/${op}`, { method: 'POST', body: JSON.stringify({ key }) })).json()) as { count?: string; deleted?: string };

const replicas = ['a', 'b'].map((identity) => {
  const e = createElector({ store: etcdLeaseStore([endpoint], 'bench'), identity, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250, logger });
  e.start();
  return e;
});
let samples = 0;
let both = 0;
const sampler = setInterval(() => {
  samples += 1;
  if (replicas.every((e) => e.leading)) both += 1;
}, 5);

const coldStarted = performance.now();
while (!replicas.some((e) => e.leading)) await sleep(5);
const coldStartMs = performance.now() - coldStarted;
const recoveries: number[] = [];
let seed = 7;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
for (let i = 0; i < DELETIONS; i += 1) {
  if (i % 2 === 0) {
    // Right after a creation: wait for the key to appear, then delete it within 0 to 200 ms.
    while (Number((await kv('range')).count ?? 0) === 0) await sleep(2);
    await sleep(random() * 200);
  } else {
    await sleep(200 + random() * 2800);
  }
  const deletedAt = performance.now();
  await kv('deleterange');
  while (replicas.some((e) => e.leading)) await sleep(5);
  while (!replicas.some((e) => e.leading)) await sleep(5);
  recoveries.push(performance.now() - deletedAt);
}
clearInterval(sampler);
await Promise.all(replicas.map((e) => e.stop()));
await etcd.stop();
rmSync(root, { recursive: true, force: true });

const sorted = [...recoveries].sort((x, y) => x - y);
console.log(`lease record deleted ${DELETIONS} times (half within 200 ms of a creation), two replicas, lease 2 s / renew 1.5 s / retry 250 ms`);
console.log(`  samples (every 5 ms): ${samples}; with two leaders: ${both}`);
console.log(`  cold start to a leader: ${(coldStartMs / 1000).toFixed(2)} s`);
console.log(`  a leader again after a deletion: min ${(sorted[0]! / 1000).toFixed(2)} s, median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s, max ${(sorted.at(-1)! / 1000).toFixed(2)} s`);
process.exitCode = both === 0 ? 0 : 1;
