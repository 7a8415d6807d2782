/** `leader-election:` read from the config file with the same checks as every other key. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseConfig } from '../src/config/index.js';
import type { ValidationError } from '../src/errors.js';

const base = 'sources: [{ name: s, organization: o, path: . }]\n';

async function problems(section: string): Promise<string[]> {
  try {
    await parseConfig(`${base}leader-election:\n${section}`, 'daemon.yaml', {});
    return [];
  } catch (error) {
    return (error as ValidationError).problems.map((p) => `${p.line ?? ''}: ${p.message}`);
  }
}

test('the section as the docs show it, and its defaults', async () => {
  const config = await parseConfig(`${base}leader-election:\n  store: etcd\n  endpoints: [http://127.0.0.1:2379]\n  lease-name: policy-pool-sync\n  lease-duration: 15s\n  renew-deadline: 10s\n  retry-period: 2s\n`, 'daemon.yaml', {});
  assert.deepEqual(config.leaderElection, { store: 'etcd', endpoints: ['http://127.0.0.1:2379'], leaseName: 'policy-pool-sync', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
  const defaults = await parseConfig(`${base}leader-election: { store: kubernetes, lease-duration: 1.5s, renew-deadline: 1200ms, retry-period: 250ms }\n`, 'daemon.yaml', {});
  assert.deepEqual(defaults.leaderElection, { store: 'kubernetes', endpoints: [], leaseName: 'policy-pool-sync', leaseDurationMs: 1_500, renewDeadlineMs: 1_200, retryPeriodMs: 250 });
  assert.equal((await parseConfig(base, 'daemon.yaml', {})).leaderElection, undefined, 'opt-in: absent, no election');
});

test('every problem at once, each with its line: the timings in the order client-go checks, etcd without endpoints, unknown keys', async () => {
  const found = await problems('  store: etcd\n  lease-duration: 10s\n  renew-deadline: 10s\n  retry-period: 9s\n');
  assert.equal(found.length, 3, found.join('\n'));
  assert.match(found.join('\n'), /needs "endpoints": etcd's client URLs/);
  assert.match(found.join('\n'), /5: .*renew-deadline.* \(10s\) must be shorter than lease-duration \(10s\)/);
  assert.match(found.join('\n'), /6: .*retry-period.* \(9s\) must be well under renew-deadline \(10s\)/);
  assert.match((await problems('  store: etcd\n  endpoints: [http://e:2379]\n  lease-duration: 15\n')).join('\n'), /lease-duration/);
  assert.match((await problems('  store: zookeeper\n')).join('\n'), /store/);
  assert.match((await problems('  store: kubernetes\n  endpoints: [http://e:2379]\n')).join('\n'), /is for store "etcd"/);
  assert.match((await problems('  store: kubernetes\n  namespace: x\n')).join('\n'), /namespace/);
});

test('an etcd endpoint with credentials in it is refused: they would be shown in errors', async () => {
  const found = (await problems('  store: etcd\n  endpoints: [http://root:Secret-1@127.0.0.1:2379]\n')).join('\n');
  assert.match(found, /endpoints\[0\] carries credentials/);
  assert.ok(!found.includes('Secret-1'), found);
});
