/**
 * Two runs of one user at once: two clients with the same token, each reconciling its own organization of `policies`
 * generated native policies (creates and uploads, then lists), against the emulator at `limit` req/s counting a
 * sliding window, with real `x-ratelimit-reset` values or every reset reading 0.0 (the hosted service's sample).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import type { SourceConfig } from '../../src/config/types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { silentLogger } from '../../src/logger.js';
import { runPass } from '../../src/reconcile.js';
import { writePolicies } from './generate.js';

export interface TwoRunsFigures {
  reset: 'real' | 'zero';
  limit: number;
  seconds: number;
  requests: number;
  /** Requests of both runs per second, over the limit, from the start until both ended. */
  shareOfLimit: number;
  responses429: number;
  share429: number;
  bothOk: boolean;
}

export async function twoRuns(reset: 'real' | 'zero', limit = 30, policies = 150): Promise<TwoRunsFigures> {
  const orgs = ['run-a', 'run-b'];
  const scratch = await mkdtemp(join(tmpdir(), 'pps-bench-two-runs-'));
  const emulator = await startEmulator({
    port: 0, seed: { token: 'bench-token', rateLimit: limit, rateLimitWindow: 'sliding', rateLimitReset: reset, organizations: orgs.map((name) => ({ name })) },
  });
  const logger = silentLogger();
  try {
    const dirs = await Promise.all(orgs.map(async (org) => {
      const dir = join(scratch, org);
      await writePolicies(dir, policies);
      return dir;
    }));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const clients = orgs.map(() => new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger }));
    const started = performance.now();
    const outcomes = await Promise.all(orgs.map((org, i) => {
      const source: SourceConfig = {
        name: org, organization: org, path: dirs[i]!, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
        maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 3600,
      };
      return runPass({ source, dir: dirs[i]!, revision: null, api: clients[i]!, logger, mode: 'apply' });
    }));
    const seconds = (performance.now() - started) / 1000;
    const stats = clients.map((c) => c.stats());
    await Promise.all(clients.map((c) => c.close()));
    const requests = stats.reduce((sum, s) => sum + s.requests, 0);
    const limited = stats.reduce((sum, s) => sum + s.rateLimited, 0);
    const answered = requests - limited;
    return {
      reset, limit, seconds: Number(seconds.toFixed(1)), requests,
      shareOfLimit: Number((answered / seconds / limit).toFixed(3)),
      responses429: limited,
      share429: Number((limited / requests).toFixed(4)),
      bothOk: outcomes.every((o) => o.ok),
    };
  } finally {
    await emulator.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
