/**
 * How much of the rate limit the API client uses, in real time, against the emulator counting a sliding
 * one-second window (its default, the strictest reading of the service). At limits 10, 30 and 100 req/s:
 * - alone: the share of the limit it sustains and the share of its requests answered 429
 *   (target: at least 90% of the limit, at most 1% 429s);
 * - beside a second client of the same user that spends a third of the budget at a steady pace: the
 *   share of what is left that it sustains (target: at least 75%, at most 3% 429s).
 * - the same at 30 req/s with every `x-ratelimit-reset` reading 0.0, as the hosted service's sample answer shows;
 * - two runs of one user at once (two clients, one token, 150 policies each, 30 req/s), with real resets and with
 *   resets of 0.0: the share of the limit both use together (target: at least 85%, at most 2% 429s, both runs ok).
 * Exits 1 when a target is missed (figures are for an idle machine).
 * Run: node --import tsx bench/api-rate.ts [seconds=12]
 */
import { ApiClient } from '../src/api/client.js';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';
import { silentLogger } from '../src/logger.js';
import { percentile, runLoad } from './lib/load.js';
import { twoRuns } from './lib/two-runs.js';

const LIMITS = [10, 30, 100];
const ORG = 'bench-org';

interface Figures {
  scenario: 'alone' | 'shared';
  limit: number;
  /** What the client may use: the limit, or what the other client leaves of it. */
  available: number;
  requests: number;
  sustainedPerSecond: number;
  shareOfAvailable: number;
  responses429: number;
  share429: number;
  /** One HTTP exchange, from its start slot to its answer: with 8 requests in flight, 8 / round trip caps the rate. */
  p50RoundTripMs: number;
  other?: { perSecond: number; responses429: number };
}

/** A client of the same user that sends GET /ping at a steady `perSecond`, ignoring what it is told, until stopped. */
function steadyNeighbour(emulator: RunningEmulator, perSecond: number): { stop(): Promise<{ sent: number; rateLimited: number; seconds: number }> } {
  let running = true;
  let sent = 0;
  let rateLimited = 0;
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  const loop = (async () => {
    for (let next = performance.now(); running; next += 1000 / perSecond) {
      const wait = next - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const request = fetch(`${emulator.url}/ping`, { headers: { authorization: `Bearer ${emulator.token}` } }).then(async (res) => {
        await res.arrayBuffer();
        sent += 1;
        if (res.status === 429) rateLimited += 1;
      });
      inFlight.add(request);
      void request.finally(() => inFlight.delete(request));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      await Promise.all(inFlight);
      return { sent, rateLimited, seconds: (performance.now() - started) / 1000 };
    },
  };
}

async function measure(limit: number, scenario: Figures['scenario'], seconds: number, reset: 'real' | 'zero' = 'real'): Promise<Figures> {
  const emulator = await startEmulator({ port: 0, seed: { rateLimit: limit, rateLimitWindow: 'sliding', rateLimitReset: reset, organizations: [{ name: ORG }] } });
  const roundTripsMs: number[] = [];
  const client = new ApiClient({
    baseUrl: emulator.url, token: emulator.token, logger: silentLogger(), onRequest: ({ durationMs }) => void roundTripsMs.push(durationMs),
  });
  try {
    const policy = await client.createPolicy(ORG, {
      name: 'bench', kind: 'native', description: null, enforcementLevel: 'advisory', query: null, policySetIds: [],
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const neighbour = scenario === 'shared' ? steadyNeighbour(emulator, limit / 3) : null;
    if (neighbour !== null) await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = client.stats();
    roundTripsMs.length = 0;
    const available = scenario === 'shared' ? limit - limit / 3 : limit;
    const result = await runLoad(client, policy.id, Math.round(available * seconds));
    const other = await neighbour?.stop();
    const after = client.stats();
    const sentByClient = after.requests - before.requests;
    return {
      scenario,
      limit,
      available: Number(available.toFixed(2)),
      requests: result.requests,
      sustainedPerSecond: Number(result.rate.toFixed(2)),
      shareOfAvailable: Number((result.rate / available).toFixed(3)),
      responses429: result.rateLimited,
      share429: Number((result.rateLimited / sentByClient).toFixed(4)),
      p50RoundTripMs: Number(percentile(roundTripsMs, 50).toFixed(1)),
      ...(other === undefined ? {} : { other: { perSecond: Number((other.sent / other.seconds).toFixed(2)), responses429: other.rateLimited } }),
    };
  } finally {
    await client.close();
    await emulator.close();
  }
}

const seconds = Number(process.argv[2] ?? 12);
let missed = 0;
const cases = [
  ...(['alone', 'shared'] as const).flatMap((scenario) => LIMITS.map((limit) => ({ scenario, limit, reset: 'real' as const }))),
  ...(['alone', 'shared'] as const).map((scenario) => ({ scenario, limit: 30, reset: 'zero' as const })),
];
for (const { scenario, limit, reset } of cases) {
  {
    const figures = await measure(limit, scenario, seconds, reset);
    const [useTarget, limitedTarget] = scenario === 'alone' ? [0.9, 0.01] : [0.75, 0.03];
    const met = figures.shareOfAvailable >= useTarget && figures.share429 <= limitedTarget;
    if (!met) missed += 1;
    console.log(
      `${scenario.padEnd(6)} limit ${String(limit).padStart(3)}/s${reset === 'zero' ? ' (reset 0.0)' : ''}: ${(figures.shareOfAvailable * 100).toFixed(1)}% of ${scenario === 'alone' ? 'the limit' : 'what is left'}` +
        `, ${(figures.share429 * 100).toFixed(2)}% 429s ${met ? 'ok' : `MISSED (target >= ${useTarget * 100}%, <= ${limitedTarget * 100}% 429s)`}`,
    );
    console.log(JSON.stringify(figures));
  }
}
for (const reset of ['real', 'zero'] as const) {
  const figures = await twoRuns(reset);
  const met = figures.shareOfLimit >= 0.85 && figures.share429 <= 0.02 && figures.bothOk;
  if (!met) missed += 1;
  console.log(
    `two runs of one user, 30/s, ${reset === 'zero' ? 'reset 0.0' : 'real reset'}: ${(figures.shareOfLimit * 100).toFixed(1)}% of the limit together, ` +
      `${(figures.share429 * 100).toFixed(2)}% 429s, both ok: ${figures.bothOk} ${met ? 'ok' : 'MISSED (target >= 85%, <= 2% 429s, both ok)'}`,
  );
  console.log(JSON.stringify(figures));
}
process.exitCode = missed > 0 ? 1 : 0;
