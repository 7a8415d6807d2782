import type { SourceProblem } from '../errors.js';
import { leaderElectionProblems } from './leader-election-checks.js';
import { LEADER_ELECTION_DEFAULTS, toLeaderElection, type RawLeaderElection } from './to-config.js';
import type { LeaderElectionConfig } from './types.js';

/**
 * Leader election switched on, or set, from the environment (as Flux's `--enable-leader-election`), so that an
 * overlay turns it on without a config of its own:
 * - `LEADER_ELECTION`: `etcd` or `kubernetes`, the store; it switches election on over a config without `leader-election:`;
 * - `LEADER_ELECTION_ENDPOINTS`: etcd's client URLs, separated by commas;
 * - `LEADER_ELECTION_LEASE_NAME`, `LEADER_ELECTION_LEASE_DURATION`, `LEADER_ELECTION_RENEW_DEADLINE`,
 *   `LEADER_ELECTION_RETRY_PERIOD`: as the keys of `leader-election:`;
 * - `LEADER_ELECTION_ADDRESS`: where a standby hands this replica webhook deliveries (`http://$(POD_IP):9090`).
 * Each replaces the key of the file; the result is checked as the file's `leader-election:` is.
 */
export const LEADER_ELECTION_ENV = {
  store: 'LEADER_ELECTION',
  endpoints: 'LEADER_ELECTION_ENDPOINTS',
  'lease-name': 'LEADER_ELECTION_LEASE_NAME',
  'lease-duration': 'LEADER_ELECTION_LEASE_DURATION',
  'renew-deadline': 'LEADER_ELECTION_RENEW_DEADLINE',
  'retry-period': 'LEADER_ELECTION_RETRY_PERIOD',
  address: 'LEADER_ELECTION_ADDRESS',
} as const;

const DURATION = /^[0-9]+(\.[0-9]+)?(ms|s|m)$/;
const URL_ROOT = /^https?:\/\/[^\s/]+\/?$/;
const LEASE_NAME = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

export function leaderElectionFromEnv(file: LeaderElectionConfig | undefined, env: NodeJS.ProcessEnv): { value: LeaderElectionConfig | undefined; problems: SourceProblem[] } {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const given = Object.values(LEADER_ELECTION_ENV).filter((name) => read(name) !== undefined);
  if (given.length === 0) return { value: file, problems: [] };
  const problems: SourceProblem[] = [];
  const problem = (message: string) => problems.push({ file: 'environment', message });
  const store = read(LEADER_ELECTION_ENV.store) ?? file?.store;
  if (store === undefined) {
    problem(`${given.join(', ')} set without LEADER_ELECTION: set LEADER_ELECTION=etcd or LEADER_ELECTION=kubernetes to switch leader election on`);
    return { value: file, problems };
  }
  if (store !== 'etcd' && store !== 'kubernetes') problem(`LEADER_ELECTION "${store}" must be etcd or kubernetes`);
  const raw = fileAsRaw(file, store as RawLeaderElection['store']);
  const endpoints = read(LEADER_ELECTION_ENV.endpoints)?.split(',').map((e) => e.trim()).filter((e) => e !== '');
  if (endpoints !== undefined) raw.endpoints = endpoints;
  for (const endpoint of raw.endpoints ?? []) if (!URL_ROOT.test(endpoint)) problem(`LEADER_ELECTION_ENDPOINTS: "${endpoint}" must be http(s)://host:port`);
  const leaseName = read(LEADER_ELECTION_ENV['lease-name']);
  if (leaseName !== undefined && !LEASE_NAME.test(leaseName)) problem(`LEADER_ELECTION_LEASE_NAME "${leaseName}" must be lower-case letters, digits, "-" and ".", at most 63`);
  if (leaseName !== undefined) raw['lease-name'] = leaseName;
  for (const key of ['lease-duration', 'renew-deadline', 'retry-period'] as const) {
    const value = read(LEADER_ELECTION_ENV[key]);
    if (value === undefined) continue;
    if (!DURATION.test(value)) problem(`${LEADER_ELECTION_ENV[key]} "${value}" must be a duration such as 15s, 1500ms or 1m`);
    else raw[key] = value;
  }
  const address = read(LEADER_ELECTION_ENV.address);
  if (address !== undefined && !URL_ROOT.test(address)) problem(`LEADER_ELECTION_ADDRESS "${address}" must be http(s)://host:port, e.g. http://$(POD_IP):9090`);
  else if (address !== undefined) raw.address = address;
  if (problems.length > 0) return { value: file, problems };
  for (const found of leaderElectionProblems(raw)) problem(`leader election from the environment: ${found.message}`);
  return { value: problems.length > 0 ? file : toLeaderElection(raw), problems };
}

/** The file's settings as the raw keys, on `store`. */
function fileAsRaw(file: LeaderElectionConfig | undefined, store: RawLeaderElection['store']): RawLeaderElection {
  const d = LEADER_ELECTION_DEFAULTS;
  return {
    store,
    ...(file === undefined || file.endpoints.length === 0 ? {} : { endpoints: [...file.endpoints] }),
    'lease-name': file?.leaseName ?? d.leaseName,
    'lease-duration': file === undefined ? d.leaseDuration : `${file.leaseDurationMs}ms`,
    'renew-deadline': file === undefined ? d.renewDeadline : `${file.renewDeadlineMs}ms`,
    'retry-period': file === undefined ? d.retryPeriod : `${file.retryPeriodMs}ms`,
    ...(file?.address === undefined ? {} : { address: file.address }),
    ...(file?.forwardToLoopback === undefined ? {} : { 'forward-to-loopback': file.forwardToLoopback }),
  };
}
