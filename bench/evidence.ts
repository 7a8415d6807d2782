/**
 * What reading the evidence of a plan that tightens enforcement costs: 500 workspaces in scope with 5 runs each in the
 * window (each run one policy check of one Sentinel set of 3 policies that is not agent-enabled, as the service's
 * default set reports), read by the real client (its queue and pacers, rate 'auto') from the emulator at the real
 * limits: 30 req/s counting a sliding window, and 30 a minute on each run list (0 turns either off). Four readings:
 * cold within the default budget (500 requests, 120 s); cold with no practical bound (everything); warm, the cache
 * filled by that read (a daemon's next pass), within the default budget; and warm after one new run per workspace.
 * Each prints its requests (run lists apart), seconds, runs read from the service and from the cache, and whether the
 * readout is partial.
 * Run: node --import tsx bench/evidence.ts [WORKSPACES=500] [RUNS=5] [LIMIT=30] [LIST_LIMIT=30]
 */
import { ApiClient } from '../src/api/client.js';
import { createRunCache, type RunCache } from '../src/api/evidence-cache.js';
import { DEFAULT_EVIDENCE_BUDGET, readEvidence } from '../src/api/evidence.js';
import { startEmulator, type RunningEmulator, type Seed } from '../src/emulator/index.js';
import { silentLogger } from '../src/logger.js';

const ORG = 'bench-org';
const WORKSPACES = Number(process.argv[2] ?? 500);
const RUNS = Number(process.argv[3] ?? 5);
const LIMIT = Number(process.argv[4] ?? 30);
const LIST_LIMIT = Number(process.argv[5] ?? 30);
const DEFAULT_SECONDS = 120;
const NOW = Date.parse('2026-11-27T12:00:00.000Z');
const HOUR = 3_600_000;
const POLICIES = ['deny-public', 'require-tags', 'cost-cap'];
const workspaces = Array.from({ length: WORKSPACES }, (_, i) => ({ id: `ws-bench${String(i).padStart(4, '0')}`, name: `bench-${i}` }));

function seed(): Seed {
  const runs = workspaces.flatMap((ws, w) => Array.from({ length: RUNS }, (_, r) => ({
    workspace: ws.id,
    createdAt: new Date(NOW - (r * 24 + 1) * HOUR).toISOString(),
    outcomes: POLICIES.map((policy, p) => ({ policy, set: 'baseline', status: (w + r + p) % 7 === 0 ? 'failed' as const : 'passed' as const })),
  })));
  const policySets = [{ id: 'polset-BenchBaseline1', name: 'baseline', global: true }];
  return { token: 'bench-token-evidence', rateLimit: LIMIT, runListRateLimit: LIST_LIMIT, organizations: [{ name: ORG, workspaces, runs, policySets }] };
}

async function measure(emulator: RunningEmulator, label: string, budget: number, cache: RunCache, maxSeconds?: number): Promise<void> {
  const client = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger() });
  await fetch(`${emulator.origin}/_emulator/requests`, { method: 'DELETE', headers: { authorization: `Bearer ${emulator.token}` } });
  const started = performance.now();
  const readout = await readEvidence(client.runs, {
    organization: ORG, workspaces, policies: POLICIES, budget, cache, now: () => NOW + HOUR, ...(maxSeconds === undefined ? {} : { maxMs: maxSeconds * 1000 }),
  });
  const seconds = (performance.now() - started) / 1000;
  const stats = client.stats();
  await client.close();
  const logged = (await (await fetch(`${emulator.origin}/_emulator/requests`, { headers: { authorization: `Bearer ${emulator.token}` } })).json()) as { requests: Array<{ path: string }> };
  const lists = logged.requests.filter((r) => /\/runs(\?|$)/.test(r.path)).length;
  const read = readout.workspaces.reduce((sum, ws) => sum + ws.runsRead, 0);
  const complete = readout.workspaces.filter((ws) => ws.complete).length;
  console.log(`${label.padEnd(34)} ${String(readout.requests).padStart(5)} requests (${lists} run lists)  ${seconds.toFixed(1).padStart(6)} s  `
    + `runs read ${read - readout.cachedRuns} + ${readout.cachedRuns} cached  workspaces complete ${complete}/${WORKSPACES}  partial ${readout.partial}`
    + `  (429s ${stats.rateLimited}, waited ${stats.rateLimitWaitSeconds.toFixed(1)} s)`);
}

async function main(): Promise<void> {
  const emulator = await startEmulator({ port: 0, seed: seed(), now: () => Date.now() });
  try {
    const client = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger: silentLogger() });
    for (const name of POLICIES) {
      await client.createPolicy(ORG, { name, kind: 'native', description: null, enforcementLevel: 'hard-mandatory', query: null, policySetIds: ['polset-BenchBaseline1'] });
    }
    await client.close();
    console.log(`${WORKSPACES} workspaces x ${RUNS} runs, ${POLICIES.length} policies; emulator at ${LIMIT || 'no'} req/s (sliding), run lists at ${LIST_LIMIT || 'no'} a minute`);
    const budget = `budget ${DEFAULT_EVIDENCE_BUDGET} req, ${DEFAULT_SECONDS} s`;
    await measure(emulator, `cold, ${budget}`, DEFAULT_EVIDENCE_BUDGET, createRunCache(), DEFAULT_SECONDS);
    const cache = createRunCache();
    await measure(emulator, 'cold, no bound', 1_000_000, cache);
    await measure(emulator, `warm, ${budget}`, DEFAULT_EVIDENCE_BUDGET, cache, DEFAULT_SECONDS);
    for (const ws of workspaces) {
      await fetch(`${emulator.origin}/_emulator/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emulator.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workspace: ws.id, 'created-at': new Date(NOW).toISOString() }),
      });
    }
    await measure(emulator, 'warm + 1 new run each, no bound', 1_000_000, cache);
  } finally {
    await emulator.close();
  }
}

await main();
