import path from 'node:path';
import type { SourceProblem } from '../errors.js';
import { parseHostPort } from '../host-port.js';
import { leaderElectionFromEnv } from './leader-election-env.js';
import type { Config } from './types.js';

/**
 * Environment variables that override the config file (file < env < flags):
 * - `API_BASE_URL` replaces `api.url`;
 * - `LISTEN_ADDRESS` replaces `listen` (a container sets `0.0.0.0:9090`);
 * - `STATE_DIR` replaces `state-dir`;
 * - `SHUTDOWN_TIMEOUT` replaces `shutdown-timeout` (seconds);
 * - `API_NATIVE_KIND` replaces `api.native-kind` (`native` or `sentinel`; `--native-kind` wins);
 * - `LEADER_ELECTION` and the `LEADER_ELECTION_*` settings switch leader election on, or replace its keys (leader-election-env.ts).
 * The token is not an override: `resolveToken` reads `API_TOKEN` when it is needed.
 */
export const ENV_OVERRIDES = ['API_BASE_URL', 'LISTEN_ADDRESS', 'STATE_DIR', 'SHUTDOWN_TIMEOUT', 'API_NATIVE_KIND'] as const;

export function applyEnvOverrides(config: Config, env: NodeJS.ProcessEnv, cwd: string): { config: Config; problems: SourceProblem[] } {
  const problems: SourceProblem[] = [];
  const url = nonEmpty(env.API_BASE_URL);
  const listen = nonEmpty(env.LISTEN_ADDRESS);
  const stateDir = nonEmpty(env.STATE_DIR);
  const shutdown = nonEmpty(env.SHUTDOWN_TIMEOUT);
  const shutdownSeconds = shutdown === undefined ? undefined : Number(shutdown);
  const nativeKind = nonEmpty(env.API_NATIVE_KIND);
  if (nativeKind !== undefined && nativeKind !== 'native' && nativeKind !== 'sentinel') {
    problems.push({ file: 'environment', message: `API_NATIVE_KIND must be native or sentinel (the hosted service's word), not "${nativeKind}"` });
  }
  if (url !== undefined && !/^(embedded|https?:\/\/\S+)$/.test(url)) {
    problems.push({ file: 'environment', message: 'API_BASE_URL must be "embedded" or an http(s) URL ending in /api/v2' });
  }
  if (listen !== undefined && !isHostPort(listen)) {
    problems.push({ file: 'environment', message: `LISTEN_ADDRESS "${listen}" must be host:port, e.g. 0.0.0.0:9090` });
  }
  if (shutdownSeconds !== undefined && !(Number.isFinite(shutdownSeconds) && shutdownSeconds >= 0)) {
    problems.push({ file: 'environment', message: `SHUTDOWN_TIMEOUT "${shutdown}" must be a number of seconds, 0 or more` });
  }
  const election = leaderElectionFromEnv(config.leaderElection, env);
  problems.push(...election.problems);
  return {
    config: {
      ...config,
      ...(election.value === undefined ? {} : { leaderElection: election.value }),
      api: { ...config.api, url: url ?? config.api.url, ...(nativeKind === 'native' || nativeKind === 'sentinel' ? { nativeKind } : {}) },
      listen: listen ?? config.listen,
      stateDir: stateDir === undefined ? config.stateDir : path.resolve(cwd, stateDir),
      shutdownTimeoutSeconds: shutdownSeconds !== undefined && Number.isFinite(shutdownSeconds) ? shutdownSeconds : config.shutdownTimeoutSeconds,
    },
    problems,
  };
}

export function isHostPort(value: string): boolean {
  return parseHostPort(value) !== null;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
