/**
 * The Kubernetes store against a recorded contract of the Lease API (test/helpers/lease-api.ts): no API server can be
 * had here. The exchange is the one client-go's LeaseLock has: GET, POST to create, PUT with resourceVersion, 409 lost.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { createLogger } from '../src/logger.js';
import { createElector, kubernetesLeaseStore, liveHolder, podLeaseStore, type LeaderRecord, type LeaseStore } from '../src/leader/index.js';
import { startLeaseApi, type LeaseApi } from './helpers/lease-api.js';
import { tempTree } from './helpers/temp-tree.js';
import { waitFor } from './helpers/wait.js';

const TOKEN = 'service-account-Token-1';
const signal = () => AbortSignal.timeout(5_000);
const record = (holder: string): LeaderRecord => ({ holderIdentity: holder, leaseDurationMs: 2000, acquireTime: '2026-01-02T03:04:05.678Z', renewTime: '2026-01-02T03:04:05.678Z', leaderTransitions: 0 });

async function cluster(t: TestContext): Promise<{ api: LeaseApi; open: () => Promise<LeaseStore> }> {
  const dir = await tempTree(t, {}, 'pps-sa-');
  const api = await startLeaseApi(dir, { namespace: 'sync', token: TOKEN });
  t.after(() => api.close());
  await writeFile(path.join(dir, 'ca.crt'), api.ca);
  await writeFile(path.join(dir, 'token'), `${TOKEN}\n`);
  await writeFile(path.join(dir, 'namespace'), 'sync');
  const open = async () => {
    const store = await kubernetesLeaseStore({ apiServer: api.url, serviceAccountDir: dir, leaseName: 'policy-pool-sync' });
    t.after(() => store.close());
    return store;
  };
  return { api, open };
}

test('the Lease exchange: GET 404, POST creates, PUT on the resourceVersion read, 409 when another wrote first', async (t) => {
  const { api, open } = await cluster(t);
  const store = await open();
  assert.equal(store.description, 'Lease sync/policy-pool-sync');
  assert.equal(await store.get(signal()), null);
  const created = await store.create(record('a'), signal());
  assert.notEqual(created, 'conflict');
  assert.equal(await store.create(record('b'), signal()), 'conflict');
  const read = await store.get(signal());
  assert.equal(read?.record.holderIdentity, 'a');
  assert.equal(read?.record.leaseDurationMs, 2000);
  const put = await store.update(record('b'), read?.version ?? '', signal());
  assert.notEqual(put, 'conflict');
  assert.equal(await store.update(record('c'), read?.version ?? '', signal()), 'conflict');
  // What the API server holds is a Lease as client-go writes it: whole seconds and MicroTime stamps.
  assert.deepEqual(api.lease()?.spec, { holderIdentity: 'b', leaseDurationSeconds: 2, acquireTime: '2026-01-02T03:04:05.678000Z', renewTime: '2026-01-02T03:04:05.678000Z', leaseTransitions: 0 });
  assert.equal(api.lease()?.apiVersion, 'coordination.k8s.io/v1');
  assert.deepEqual(api.requests.map((r) => `${r.method} ${r.path}`), [
    'GET /apis/coordination.k8s.io/v1/namespaces/sync/leases/policy-pool-sync',
    'POST /apis/coordination.k8s.io/v1/namespaces/sync/leases',
    'POST /apis/coordination.k8s.io/v1/namespaces/sync/leases',
    'GET /apis/coordination.k8s.io/v1/namespaces/sync/leases/policy-pool-sync',
    'PUT /apis/coordination.k8s.io/v1/namespaces/sync/leases/policy-pool-sync',
    'PUT /apis/coordination.k8s.io/v1/namespaces/sync/leases/policy-pool-sync',
  ]);
  assert.ok(api.requests.every((r) => r.authorization === `Bearer ${TOKEN}`), 'the service-account token on every request');
});

test('a refused token is an error naming the RBAC to apply, never the token; no CA is a usage error', async (t) => {
  const { api } = await cluster(t);
  const dir = await tempTree(t, { 'ca.crt': api.ca, token: 'revoked-Token-9', namespace: 'sync' }, 'pps-sa-');
  const store = await kubernetesLeaseStore({ apiServer: api.url, serviceAccountDir: dir, leaseName: 'policy-pool-sync' });
  t.after(() => store.close());
  const error = await store.get(signal()).then(() => null, (e: unknown) => e as Error);
  assert.match(String(error?.message), /GET Lease sync\/policy-pool-sync: HTTP 401: the service account may not get leases in sync: apply the Role and RoleBinding of deploy\/ha/);
  assert.ok(!String(error?.message).includes('revoked-Token-9'));
  const bare = await tempTree(t, { token: 'x', namespace: 'sync' }, 'pps-sa-');
  await assert.rejects(kubernetesLeaseStore({ apiServer: api.url, serviceAccountDir: bare, leaseName: 'x' }), { name: 'UsageError', message: /ca\.crt: set automountServiceAccountToken: true/ });
});

test('two candidates over the Lease API: one leads; on stop it releases the Lease (no holder, 1 s) and the other takes it', async (t) => {
  const { api, open } = await cluster(t);
  const logger = createLogger({ level: 'silent' });
  const make = async (identity: string) => createElector({ store: await open(), identity, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250, logger });
  const a = await make('pod-a');
  a.start();
  await waitFor('pod-a to lead', () => (a.leading ? true : undefined));
  const b = await make('pod-b');
  t.after(() => b.stop());
  b.start();
  await waitFor('pod-b to see pod-a', () => (b.leader === 'pod-a' ? true : undefined));
  await a.stop();
  const released = api.requests.filter((r) => r.method === 'PUT').map((r) => (r.body as { spec: Record<string, unknown> }).spec).find((s) => s.holderIdentity === '');
  assert.equal(released?.leaseDurationSeconds, 1);
  await waitFor('pod-b to lead', () => (b.leading ? true : undefined));
  assert.equal(api.lease()?.spec.holderIdentity, 'pod-b');
  assert.equal(api.lease()?.spec.leaseTransitions, 1);
});

test('the fingerprint and the address travel as the Lease\'s annotations; an answer larger than 1 MiB is refused unread', async (t) => {
  const { api, open } = await cluster(t);
  const store = await open();
  const created = await store.create({ ...record('a'), fingerprint: '0123abcd', address: 'http://10.0.0.5:9090' }, signal());
  assert.notEqual(created, 'conflict');
  assert.deepEqual(api.lease()?.metadata.annotations, { 'policy-pool-sync.io/fingerprint': '0123abcd', 'policy-pool-sync.io/leader-address': 'http://10.0.0.5:9090' });
  const read = await store.get(signal());
  assert.equal(read?.record.fingerprint, '0123abcd');
  assert.equal(read?.record.address, 'http://10.0.0.5:9090');
  // Someone writes a Lease of 2 MB: the store reads no more than 1 MiB of it.
  const large = { ...record('x'), fingerprint: 'f'.repeat(2 * 1024 * 1024) };
  await assert.rejects(store.update(large, read?.version ?? '', signal()), { name: 'LeaseStoreError', message: /PUT Lease sync\/policy-pool-sync answered more than 1 MiB/ });
  await assert.rejects(store.get(signal()), { name: 'LeaseStoreError', message: /GET Lease sync\/policy-pool-sync answered more than 1 MiB/ });
});

test('a replica without election reads the pod\'s Lease once: a live holder is named, an expired or released one is not', async (t) => {
  const { open } = await cluster(t);
  const store = await open();
  const now = new Date('2026-01-02T03:04:10.000Z');
  assert.equal(await liveHolder(store, now, signal()), null, 'no Lease');
  const created = await store.create({ ...record('pod-a'), leaseDurationMs: 15_000 }, signal());
  assert.deepEqual(await liveHolder(store, now, signal()), { holder: 'pod-a', renewTime: '2026-01-02T03:04:05.678000Z' });
  assert.equal(await liveHolder(store, new Date('2026-01-02T03:05:00.000Z'), signal()), null, 'expired by the wall clock, with slack');
  await store.update({ ...record(''), leaseDurationMs: 1_000 }, created === 'conflict' ? '' : created.version, signal());
  assert.equal(await liveHolder(store, now, signal()), null, 'released');
  assert.equal(await podLeaseStore({}, 'policy-pool-sync'), null, 'outside a pod: nothing to read');
});
