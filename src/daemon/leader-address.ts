import type { Config } from '../config/types.js';

/**
 * Where a standby hands this replica webhook deliveries while it leads: `leader-election.address` (in Kubernetes,
 * `LEADER_ELECTION_ADDRESS=http://$(POD_IP)`, completed with the port it listens on), else the address it listens on
 * when that names one host.
 */
export function leaderAddress(config: Config, origin: string): string | null {
  const configured = config.leaderElection?.address;
  // An address given without a port (`http://$(POD_IP)`) takes the port this daemon listens on: the port is written once.
  if (configured !== undefined) return /:[0-9]+\/?$/.test(configured) ? configured : `${configured.replace(/\/$/, '')}:${new URL(origin).port}`;
  const host = new URL(origin).hostname;
  return host === '0.0.0.0' || host === '[::]' ? null : origin;
}
