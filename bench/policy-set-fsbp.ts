/**
 * The AWS FSBP library as a versioned policy set (policy-sets/fsbp-aws/ beside two individual policies), in a git
 * repo, against the emulator in the hosted dialect: prints the time from the commit to the set's version `ready` (a
 * fresh process's reading and packing included), the requests of that pass, and the requests of the no-op pass after
 * it, which should be the list pages alone (policies, agent pools, policy sets: one page each here), with the code
 * cache a daemon or a CLI with a state dir keeps.
 * Run: node --import tsx bench/policy-set-fsbp.ts
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiClient } from '../src/api/client.js';
import type { SourceConfig } from '../src/config/types.js';
import { startEmulator } from '../src/emulator/index.js';
import { createCodeCache } from '../src/live/code-cache.js';
import { silentLogger } from '../src/logger.js';
import { runPass } from '../src/reconcile.js';

const FSBP = fileURLToPath(new URL('../test/fixtures/corpus/fsbp-aws-set', import.meta.url));
const logger = silentLogger();
const scratch = await mkdtemp(join(tmpdir(), 'pps-bench-fsbp-'));
const org = 'org-fsbp';
const emulator = await startEmulator({ port: 0, seed: { token: 'bench-token-fsbp-0001', rateLimit: 0, nativeKind: 'sentinel', organizations: [{ name: org }] } });

interface Logged { method: string; path: string }

async function requests(): Promise<Logged[]> {
  const res = await fetch(`${emulator.origin}/_emulator/requests`, { headers: { authorization: `Bearer ${emulator.token}` } });
  return ((await res.json()) as { requests: Logged[] }).requests;
}

async function clearRequests(): Promise<void> {
  await fetch(`${emulator.origin}/_emulator/requests`, { method: 'DELETE', headers: { authorization: `Bearer ${emulator.token}` } });
}

try {
  const dir = join(scratch, 'repo');
  await cp(FSBP, join(dir, 'policy-sets/fsbp-aws'), { recursive: true });
  await mkdir(join(dir, 'policies'), { recursive: true });
  await writeFile(join(dir, 'policies/require-tags.sentinel'), 'main = rule { true }\n');
  await writeFile(join(dir, 'policies/no-public-buckets.sentinel'), 'main = rule { true }\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  const source: SourceConfig = {
    name: 'bench', organization: org, path: dir, git: null, schedule: '*/5 * * * *', prune: false, ownership: 'marker',
    maxDeletes: 10, allowEmpty: false, adopt: false, maxAgentPools: 1, passTimeoutSeconds: 3600,
  };
  // As the daemon and a CLI with a state dir keep it: the individual policies' code is not downloaded again.
  const codeCache = createCodeCache();
  const pass = async (mode: 'apply' | 'plan') => {
    const api = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger });
    try {
      return await runPass({ source, dir, revision: null, api, logger, mode, codeCache });
    } finally {
      await api.close();
    }
  };
  git('commit', '-q', '-m', 'Vendor the FSBP library');
  const committed = performance.now();
  const applied = await pass('apply');
  const ready = (performance.now() - committed) / 1000;
  const applyRequests = await requests();
  const created = applied.sourcePlan.plan?.changes.map((c) => `${c.action} ${c.resource} ${c.name}`) ?? [];
  console.log(`commit to ready: ${ready.toFixed(1)} s (ok=${applied.ok}; ${created.length} changes: ${created.join(', ')})`);
  console.log(`  that pass: ${applyRequests.length} requests (${summary(applyRequests)})`);
  await clearRequests();
  const started = performance.now();
  const noop = await pass('plan');
  const took = (performance.now() - started) / 1000;
  const noopRequests = await requests();
  const lists = noopRequests.filter((r) => r.method === 'GET' && /^\/organizations\/[^/]+\/(policies|agent-pools|policy-sets)(\?|$)/.test(r.path));
  const changes = noop.sourcePlan.plan?.changes.length ?? -1;
  console.log(`no-op pass: ${noopRequests.length} requests, of which ${lists.length} list pages; ${changes} changes in ${took.toFixed(1)} s (${summary(noopRequests)})`);
  process.exitCode = applied.ok && changes === 0 && noopRequests.length === lists.length ? 0 : 1;
} finally {
  await emulator.close();
  await rm(scratch, { recursive: true, force: true });
}

/** e.g. `GET /organizations/:org/policies x1, POST /policy-sets/:id/versions x1`. */
function summary(list: readonly Logged[]): string {
  const counts = new Map<string, number>();
  for (const r of list) {
    const path = r.path.replace(/\?.*$/, '').replace(/\/(pol|polset|polsetver|apool|ws|prj|var)-[A-Za-z0-9_-]+/g, '/:id').replace(/\/organizations\/[^/]+/, '/organizations/:org')
      // The upload link is a credential for its hour: never printed.
      .replace(/^\/_archivist\/.*$/, '(the version\'s upload link)');
    counts.set(`${r.method} ${path}`, (counts.get(`${r.method} ${path}`) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} x${n}`).join(', ');
}
