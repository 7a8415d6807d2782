/**
 * The daemon's API client under leader election, built as `runDaemon` builds it (`daemonApiClient`): every request
 * is fenced, so a replica that does not hold the lease sends nothing, whatever asks it to. The processes themselves
 * are in daemon-leader.test.ts; this holds the wiring, which a race between a timer and an answer rarely shows there.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { daemonApiClient, createDaemonMetrics } from '../src/daemon/index.js';
import { createElector, etcdLeaseStore } from '../src/leader/index.js';
import { createLogger } from '../src/logger.js';
import { testSource } from './helpers/daemon-harness.js';
import { TestEmulator } from './helpers/emulator.js';
import { startEtcd } from './helpers/etcd.js';
import { waitFor } from './helpers/wait.js';
import type { Config } from '../src/config/types.js';

const logger = createLogger({ level: 'silent' });

test('the daemon\'s API client sends nothing unless its replica holds the lease, and names the replica on what it sends', async (t) => {
  const etcd = await startEtcd(t);
  const api = await TestEmulator.start();
  t.after(() => api.close());
  const make = (identity: string) => {
    const e = createElector({ store: etcdLeaseStore([etcd.endpoint], 'fenced'), identity, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250, logger });
    t.after(() => e.stop());
    e.start();
    return e;
  };
  const leader = make('replica-a');
  await waitFor('replica-a to lead', () => (leader.leading ? true : undefined));
  const standby = make('replica-b');
  await waitFor('replica-b to see it', () => (standby.leader === 'replica-a' ? true : undefined));
  const config = {
    api: { url: api.url, tokenFile: null, rateLimit: 'auto', concurrency: 2, legacyEnforce: false, nativeKind: 'native', retryBudgetSeconds: 5 },
    sources: [testSource('local', { path: '.' })],
  } as unknown as Config;
  const client = (election: typeof leader) => daemonApiClient({ config, env: {}, logger }, { url: api.url, token: api.token }, createDaemonMetrics(), election);
  const fenced = await client(standby);
  t.after(() => fenced.close());
  await assert.rejects(fenced.listPolicies('example-org'), { name: 'NotLeaderError', message: /replica-b.*does not hold the lease/ });
  const sent = await client(leader);
  t.after(() => sent.close());
  await sent.listPolicies('example-org');
  const agents = (await api.requests()).map((r) => r['user-agent'] ?? '');
  assert.ok(agents.length > 0 && agents.every((a) => a.includes('(instance replica-a)')), JSON.stringify(agents));
});
