/**
 * The corpus (bench/corpus.ts says which: the full libraries in ../shared/corpus when present) with every `.native`
 * file renamed `.sentinel`, reconciled against the emulator in `native-kind: sentinel` mode (which answers 422 to
 * `native`), then a dry run: prints, per library, the policies created and the changes the dry run still finds
 * (expected 0), and exits 1 when any library does not round-trip.
 * Run: node --import tsx bench/sentinel-corpus.ts
 */
import { cp, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../src/api/client.js';
import type { SourceConfig } from '../src/config/types.js';
import { startEmulator } from '../src/emulator/index.js';
import { silentLogger } from '../src/logger.js';
import { runPass } from '../src/reconcile.js';
import { findCorpus } from './lib/corpus.js';

const logger = silentLogger();
const corpus = findCorpus();
const scratch = await mkdtemp(join(tmpdir(), 'pps-bench-sentinel-'));
let failed = 0;

async function renameNative(dir: string): Promise<number> {
  let renamed = 0;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.native')) continue;
    const from = join(entry.parentPath, entry.name);
    await rename(from, from.replace(/\.native$/, '.sentinel'));
    renamed += 1;
  }
  return renamed;
}

try {
  for (const name of corpus.names) {
    const dir = join(scratch, name);
    await cp(join(corpus.root, name), dir, { recursive: true });
    const renamed = await renameNative(dir);
    const org = `org-${name}`;
    const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token', rateLimit: 0, nativeKind: 'sentinel', organizations: [{ name: org }] } });
    const source: SourceConfig = {
      name: 'bench', organization: org, path: dir, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
      maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 3600,
    };
    const pass = async (mode: 'apply' | 'plan') => {
      const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger, nativeKind: 'sentinel' });
      const started = performance.now();
      const outcome = await runPass({ source, dir, revision: null, api, logger, mode });
      await api.close();
      return { outcome, seconds: (performance.now() - started) / 1000 };
    };
    try {
      const applied = await pass('apply');
      const created = applied.outcome.sourcePlan.plan?.changes.filter((c) => c.action === 'create').length ?? 0;
      const dry = await pass('plan');
      const left = dry.outcome.sourcePlan.plan?.changes.length ?? -1;
      const ok = applied.outcome.ok && dry.outcome.ok && left === 0;
      if (!ok) failed += 1;
      console.log(
        `${name}: ${renamed} files renamed .sentinel, ${created} policies created in ${applied.seconds.toFixed(1)} s (ok=${applied.outcome.ok}); ` +
          `dry run: ${left} changes in ${dry.seconds.toFixed(1)} s -> ${ok ? 'round-trips' : 'DOES NOT round-trip'}`,
      );
      if (!ok && dry.outcome.sourcePlan.plan === null) console.log(`  ${JSON.stringify(dry.outcome.sourcePlan)}`);
    } finally {
      await emulator.close();
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
}
process.exitCode = failed > 0 ? 1 : 0;
