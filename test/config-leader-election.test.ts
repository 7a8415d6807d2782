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

test('durations are capped: a lease of 50000m, which would overflow a timer, is refused; a retry-period under 100ms too', async () => {
  assert.match((await problems('  store: kubernetes\n  lease-duration: 50000m\n  renew-deadline: 10s\n  retry-period: 2s\n')).join('\n'), /lease-duration.* "50000m" is longer than 60m/);
  assert.match((await problems('  store: kubernetes\n  lease-duration: 2s\n  renew-deadline: 1s\n  retry-period: 50ms\n')).join('\n'), /retry-period.* "50ms" is shorter than 100ms/);
  assert.equal((await problems('  store: kubernetes\n  lease-duration: 60m\n  renew-deadline: 50m\n  retry-period: 1m\n')).length, 0, 'the bound itself is allowed');
});

test('switched on from the environment, over a config without leader-election: (as an overlay does), its keys replaced one by one', async () => {
  const env = { LEADER_ELECTION: 'kubernetes', LEADER_ELECTION_ADDRESS: 'http://10.1.2.3:9090', LEADER_ELECTION_LEASE_NAME: 'team-a' };
  const config = await parseConfig(base, 'daemon.yaml', env);
  assert.deepEqual(config.leaderElection, { store: 'kubernetes', endpoints: [], leaseName: 'team-a', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, address: 'http://10.1.2.3:9090' });
  const etcd = await parseConfig(`${base}leader-election: { store: kubernetes, lease-duration: 4s, renew-deadline: 3s, retry-period: 1s }\n`, 'daemon.yaml', {
    LEADER_ELECTION: 'etcd', LEADER_ELECTION_ENDPOINTS: 'http://a:2379, http://b:2379', LEADER_ELECTION_RETRY_PERIOD: '500ms',
  });
  assert.deepEqual(etcd.leaderElection, { store: 'etcd', endpoints: ['http://a:2379', 'http://b:2379'], leaseName: 'policy-pool-sync', leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 });
  assert.equal((await parseConfig(base, 'daemon.yaml', { LEADER_ELECTION: '' })).leaderElection, undefined, 'empty: off');
});

test('bad election settings from the environment are refused, each naming its variable', async () => {
  const refused = async (env: NodeJS.ProcessEnv) => {
    try {
      await parseConfig(base, 'daemon.yaml', env);
      return '';
    } catch (error) {
      return (error as ValidationError).problems.map((p) => p.message).join('\n');
    }
  };
  assert.match(await refused({ LEADER_ELECTION: 'zookeeper' }), /LEADER_ELECTION "zookeeper" must be etcd or kubernetes/);
  assert.match(await refused({ LEADER_ELECTION: 'etcd' }), /needs "endpoints"/);
  assert.match(await refused({ LEADER_ELECTION_LEASE_NAME: 'x' }), /set without LEADER_ELECTION/);
  assert.match(await refused({ LEADER_ELECTION: 'kubernetes', LEADER_ELECTION_LEASE_DURATION: '50000m' }), /longer than 60m/);
  assert.match(await refused({ LEADER_ELECTION: 'kubernetes', LEADER_ELECTION_ADDRESS: '10.0.0.1:9090' }), /LEADER_ELECTION_ADDRESS "10.0.0.1:9090" must be http/);
  const credentials = await refused({ LEADER_ELECTION: 'etcd', LEADER_ELECTION_ENDPOINTS: 'http://root:Secret-2@e:2379' });
  assert.match(credentials, /from the environment: .*endpoints\[0\] carries credentials/);
  assert.ok(!credentials.includes('Secret-2'));
});
