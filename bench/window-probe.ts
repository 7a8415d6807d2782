/**
 * What a probe costs with sync windows: /readyz latency of a daemon whose source has no window, the documented
 * 62-hour weekend freeze, and a year-long (8760 h) window. A probe's cost must not grow with the windows'
 * durations; the figure to read is the ratio to the run with no window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createApiClient } from '../src/api/from-config.js';
import { sourceDefaults } from '../src/config/to-config.js';
import type { Config, SyncWindow } from '../src/config/types.js';
import { startDaemon, type Reconcile } from '../src/daemon/index.js';
import { silentLogger } from '../src/logger.js';

const PROBES = Number(process.env.PROBES ?? 300);
const root = mkdtempSync(path.join(os.tmpdir(), 'pps-bench-windows-'));

/** A pass that plans nothing: the bench measures the probe, not the pass. */
const emptyPass: Reconcile = (request) =>
  Promise.resolve({ sourcePlan: { name: request.source.name, organization: request.source.organization, revision: null, plan: { changes: [], warnings: [], errors: [] } }, results: [], ok: true });

async function probeCost(windows: SyncWindow[]): Promise<number> {
  const config: Config = {
    api: { url: 'http://127.0.0.1:1/api/v2', tokenFile: null, rateLimit: 'auto', concurrency: 8, legacyEnforce: false, nativeKind: 'native', retryBudgetSeconds: 60 },
    sources: [{ ...sourceDefaults('bench', 'example-org'), path: path.resolve('examples/declared'), schedule: '0 0 1 1 *', syncWindows: windows }],
    listen: '127.0.0.1:0',
    webhookSecretEnv: 'BENCH_WEBHOOK_SECRET',
    shutdownTimeoutSeconds: 5,
    stateDir: mkdtempSync(path.join(root, 'state-')),
    notifications: [],
  };
  const logger = silentLogger();
  const api = await createApiClient({ config, env: { API_TOKEN: 'unused-token' }, logger });
  const daemon = await startDaemon({ config, logger, env: {}, api, reconcile: emptyPass });
  await daemon.whenIdle();
  try {
    for (let i = 0; i < 20; i += 1) await (await fetch(`${daemon.origin}/readyz`)).arrayBuffer();
    const start = performance.now();
    for (let i = 0; i < PROBES; i += 1) await (await fetch(`${daemon.origin}/readyz`)).arrayBuffer();
    return (performance.now() - start) / PROBES;
  } finally {
    await daemon.stop();
    await api.close();
  }
}

const window = (durationMinutes: number): SyncWindow => ({ kind: 'deny', schedule: '0 18 * * 5', durationMinutes, timezone: 'Europe/Berlin' });
try {
  const none = await probeCost([]);
  const weekend = await probeCost([window(62 * 60)]);
  const year = await probeCost([window(8760 * 60)]);
  console.log(`/readyz, ${PROBES} probes each: no window ${none.toFixed(2)} ms; 62 h window ${weekend.toFixed(2)} ms (x${(weekend / none).toFixed(2)}); 8760 h window ${year.toFixed(2)} ms (x${(year / none).toFixed(2)})`);
} finally {
  rmSync(root, { recursive: true, force: true });
}
