/**
 * Reconciles every corpus (bench/corpus.ts says which) as one declared repo against the emulator at its real
 * 30 req/s limit, then runs a no-change pass, and prints wall times and request counts.
 * Run: node --import tsx bench/reconcile-corpus.ts
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../src/api/client.js';
import type { SourceConfig } from '../src/config/types.js';
import { startEmulator } from '../src/emulator/index.js';
import { silentLogger } from '../src/logger.js';
import { readDeclared } from '../src/declared/index.js';
import { createCodeCache, runPass } from '../src/reconcile.js';
import { findCorpus } from './lib/corpus.js';

const ORG = 'bench-org';

const corpus = findCorpus();
const dir = await mkdtemp(join(tmpdir(), 'pps-bench-'));
for (const name of corpus.names) {
  await cp(join(corpus.root, name, 'policies'), join(dir, 'policies', name), { recursive: true });
}
const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token', rateLimit: 30, organizations: [{ name: ORG }] } });
const source: SourceConfig = {
  name: 'bench', organization: ORG, path: dir, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
  maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 600,
};
const logger = silentLogger();

/** Requests the emulator saw since the last call: to the API itself, and to the download redirects' temporary URLs. */
async function emulatorLog(): Promise<{ api: number; redirected: number }> {
  const call = (method: string) =>
    fetch(`${emulator.origin}/_emulator/requests`, { method, headers: { authorization: `Bearer ${emulator.token}` } });
  const { requests } = (await (await call('GET')).json()) as { requests: Array<{ path: string }> };
  await call('DELETE');
  const redirected = requests.filter((r) => r.path.includes('/_emulator/blobs/')).length;
  return { api: requests.length - redirected, redirected };
}

async function pass(label: string, codeCache?: ReturnType<typeof createCodeCache>): Promise<void> {
  await emulatorLog();
  const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger });
  const started = performance.now();
  const outcome = await runPass({ source, dir, revision: null, api, logger, mode: 'apply', codeCache });
  const seconds = (performance.now() - started) / 1000;
  const stats = api.stats();
  await api.close();
  const seen = await emulatorLog();
  console.log(
    `${label}: ${seconds.toFixed(1)} s, ${outcome.sourcePlan.plan === null ? 'no plan' : `${outcome.sourcePlan.plan.changes.length} changes`}, ok=${outcome.ok}, ` +
      `${seen.api} API requests (${(seen.api / seconds).toFixed(1)} req/s) + ${seen.redirected} fetches of download redirects, ` +
      `429s=${stats.rateLimited}, retries=${stats.retries}`,
  );
}

try {
  const policies = (await readDeclared(dir)).policies.length;
  console.log(`corpus: ${policies} policies; minimum for a no-change pass = ${Math.ceil(policies / 100)} policy list pages + 1 pool list page + ${policies} downloads = ${Math.ceil(policies / 100) + 1 + policies} requests`);
  await pass(`first apply (${policies} creates + ${policies} uploads)`);
  await pass('no-change pass (cold cache)');
  const cache = createCodeCache();
  await pass('no-change pass, filling the code cache', cache);
  await pass('no-change pass with a warm code cache (daemon)', cache);
} finally {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}
