/**
 * How much of the rate limit `--export` uses: an organization of 600 policies (made with the emulator's rate limit off)
 * exported the way the CLI does it (the client a flags-only config makes, its queue and pacer; the files written as
 * each policy is read) against the emulator at 30 req/s counting a sliding window, with real resets and with every
 * `x-ratelimit-reset` reading 0.0 (the hosted service's sample). The figure is the API requests answered over the
 * limit, divided by the time from the export's first call to its last file written (the process start is left out).
 * Target: at least 90% of the limit and no 429. Downloads' temporary URLs are not rate limited and do not count.
 * Exits 1 when missed (figures are for an idle machine).
 * Run: node --import tsx bench/export-rate.ts [COUNT=600] [LIMIT=30]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../src/api/client.js';
import { createApiClient } from '../src/api/from-config.js';
import { configFromFlags } from '../src/config/flags.js';
import type { SourceConfig } from '../src/config/types.js';
import { startEmulator } from '../src/emulator/index.js';
import { EXPORT_FOLDERS, exportOrganization, treeWriter } from '../src/export/index.js';
import { silentLogger } from '../src/logger.js';
import { runPass } from '../src/reconcile.js';
import { writePolicies } from './lib/generate.js';

const ORG = 'bench-org';
const COUNT = Number(process.argv[2] ?? 600);
const LIMIT = Number(process.argv[3] ?? 30);
const logger = silentLogger();

async function measure(reset: 'real' | 'zero'): Promise<boolean> {
  const scratch = await mkdtemp(join(tmpdir(), 'pps-bench-export-rate-'));
  const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token-export-rate', rateLimit: 0, rateLimitWindow: 'sliding', rateLimitReset: reset, organizations: [{ name: ORG }] } });
  const control = (method: string, path: string, body?: unknown) => fetch(`${emulator.origin}/_emulator${path}`, {
    method, headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  try {
    const repo = join(scratch, 'repo');
    await writePolicies(repo, COUNT);
    const seeding = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger, concurrency: 16 });
    const source: SourceConfig = {
      name: 'bench', organization: ORG, path: repo, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
      maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 3600,
    };
    const seeded = await runPass({ source, dir: repo, revision: null, api: seeding, logger, mode: 'apply' });
    await seeding.close();
    if (!seeded.ok) throw new Error('seeding the organization failed');
    await control('PUT', '/rate-limit', { limit: LIMIT });
    await control('DELETE', '/requests');

    const out = join(scratch, 'exported');
    const config = configFromFlags({ sourceDir: out, organization: ORG, apiUrl: emulator.url }, { API_TOKEN: emulator.token });
    const api = await createApiClient({ config, env: { API_TOKEN: emulator.token }, logger });
    const started = performance.now();
    const write = await treeWriter(out, EXPORT_FOLDERS);
    const result = await exportOrganization(api, ORG, { nativeKind: 'native', concurrency: config.api.concurrency, write });
    const seconds = (performance.now() - started) / 1000;
    await api.close();
    const log = (await (await control('GET', '/requests')).json()) as { requests: Array<{ path: string; status: number | null }> };
    const paced = log.requests.filter((r) => !r.path.startsWith('/_emulator/'));
    const limited = paced.filter((r) => r.status === 429).length;
    const answered = paced.length - limited;
    const floor = answered / LIMIT;
    const share = floor / seconds;
    const met = share >= 0.9 && limited === 0 && result.policies === COUNT;
    console.log(
      `export of ${COUNT} policies at ${LIMIT} req/s${reset === 'zero' ? ' (reset 0.0)' : ''}: ${seconds.toFixed(1)} s for ${paced.length} API requests ` +
        `(${limited} answered 429), floor ${floor.toFixed(1)} s: ${(share * 100).toFixed(1)}% of the limit ${met ? 'ok' : 'MISSED (target >= 90%, no 429s)'}`,
    );
    console.log(JSON.stringify({ reset, policies: result.policies, files: result.files.length, seconds: Number(seconds.toFixed(2)), apiRequests: paced.length, responses429: limited, shareOfLimit: Number(share.toFixed(3)) }));
    return met;
  } finally {
    await emulator.close();
    await rm(scratch, { recursive: true, force: true });
  }
}

let missed = 0;
for (const reset of ['real', 'zero'] as const) if (!(await measure(reset))) missed += 1;
process.exitCode = missed > 0 ? 1 : 0;
