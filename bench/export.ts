/**
 * `--export` of an organization of 10,000 policies (300-byte native policies, a description on every tenth): the
 * policies are made by a reconcile of a generated repo against the emulator with its rate limit off, then exported
 * the way the CLI does it; prints the export's wall time and requests, and checks the round trip (a dry run of the
 * exported repo plans nothing). At the hosted service's 30 req/s the same export takes at least (pages + downloads) / 30 s.
 * Run: node --import tsx bench/export.ts [COUNT]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../src/api/client.js';
import type { SourceConfig } from '../src/config/types.js';
import { startEmulator } from '../src/emulator/index.js';
import { EXPORT_FOLDERS, exportOrganization, treeWriter } from '../src/export/index.js';
import { silentLogger } from '../src/logger.js';
import { runPass } from '../src/reconcile.js';
import { writePolicies } from './lib/generate.js';

const ORG = 'bench-org';
const COUNT = Number(process.argv[2] ?? 10_000);
const logger = silentLogger();
const scratch = await mkdtemp(join(tmpdir(), 'pps-bench-export-'));
const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token', rateLimit: 0, organizations: [{ name: ORG }] } });
const source = (dir: string): SourceConfig => ({
  name: 'bench', organization: ORG, path: dir, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
  maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 3600,
});
const client = () => new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger, concurrency: 16 });

try {
  const repo = join(scratch, 'repo');
  await writePolicies(repo, COUNT);
  const seeding = client();
  const seeded = await runPass({ source: source(repo), dir: repo, revision: null, api: seeding, logger, mode: 'apply' });
  await seeding.close();
  if (!seeded.ok) throw new Error('seeding the organization failed');

  const api = client();
  const out = join(scratch, 'exported');
  const started = performance.now();
  const write = await treeWriter(out, EXPORT_FOLDERS);
  const result = await exportOrganization(api, ORG, { nativeKind: 'native', concurrency: 16, write });
  const seconds = (performance.now() - started) / 1000;
  const requests = api.stats();
  await api.close();
  const pages = Math.ceil(COUNT / 100);
  console.log(
    `export of ${COUNT} policies: ${seconds.toFixed(1)} s (${(COUNT / seconds).toFixed(0)} policies/s), ${result.files.length} files, ` +
      `${result.notExported.length} not exported; requests ${JSON.stringify(requests)}; ` +
      `at 30 req/s at least ${((pages + COUNT) / 30 / 60).toFixed(1)} min`,
  );

  const checking = client();
  const dry = await runPass({ source: source(out), dir: out, revision: null, api: checking, logger, mode: 'plan' });
  await checking.close();
  const changes = dry.sourcePlan.plan?.changes.length ?? -1;
  console.log(`dry run of the exported repo: ${changes} changes (expected 0)`);
  if (changes !== 0) process.exitCode = 1;
} finally {
  await emulator.close();
  await rm(scratch, { recursive: true, force: true });
}
