/**
 * Sustained request rate of the API client against the emulator at 30 req/s, in real time. Exits 1 when
 * the client falls below 90% of the limit or meets more than 5 429s (on an idle machine).
 * Run: node --import tsx bench/api-rate.ts [requests=600] [limit=30]
 */
import { ApiClient } from '../src/api/client.js';
import { startEmulator } from '../src/emulator/index.js';
import { silentLogger } from '../src/logger.js';
import { percentile, runLoad } from './lib/load.js';

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 600);
  const limit = Number(process.argv[3] ?? 30);
  const emulator = await startEmulator({ port: 0, seed: { rateLimit: limit, organizations: [{ name: 'bench-org' }] } });
  const roundTripsMs: number[] = [];
  const client = new ApiClient({
    baseUrl: emulator.url,
    token: emulator.token,
    logger: silentLogger(),
    onRequest: ({ durationMs }) => void roundTripsMs.push(durationMs),
  });
  try {
    const policy = await client.createPolicy('bench-org', {
      name: 'bench', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
    const result = await runLoad(client, policy.id, requests);
    const stats = client.stats();
    console.log(JSON.stringify({
      requests: result.requests,
      limitPerSecond: limit,
      seconds: Number(result.seconds.toFixed(2)),
      sustainedPerSecond: Number(result.rate.toFixed(2)),
      shareOfLimit: Number((result.rate / limit).toFixed(3)),
      responses429: result.rateLimited,
      // From the call to its answer, queueing for the rate limit included (all requests start at once).
      p50LatencyMs: Number(percentile(result.latenciesMs, 50).toFixed(1)),
      p95LatencyMs: Number(percentile(result.latenciesMs, 95).toFixed(1)),
      // One HTTP exchange, from the start slot to the answer.
      p50RoundTripMs: Number(percentile(roundTripsMs, 50).toFixed(2)),
      p95RoundTripMs: Number(percentile(roundTripsMs, 95).toFixed(2)),
      byStatus: stats.byStatus,
    }));
    if (result.rate < 0.9 * limit || result.rateLimited > 5) {
      console.log(`below target: at least ${0.9 * limit} req/s with at most 5 responses 429`);
      process.exitCode = 1;
    }
  } finally {
    await client.close();
    await emulator.close();
  }
}

await main();
