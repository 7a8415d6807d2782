import type { ApiClient } from '../../src/api/client.js';

export interface LoadResult {
  requests: number;
  seconds: number;
  /** Requests per second, first start to last answer. */
  rate: number;
  rateLimited: number;
  latenciesMs: number[];
}

/** Sends `count` GETs of one policy through the client all at once and measures the sustained rate. */
export async function runLoad(client: ApiClient, policyId: string, count: number): Promise<LoadResult> {
  const before = client.stats();
  const started = performance.now();
  const latenciesMs = await Promise.all(Array.from({ length: count }, async () => {
    const t0 = performance.now();
    await client.getPolicy(policyId);
    return performance.now() - t0;
  }));
  const seconds = (performance.now() - started) / 1000;
  const after = client.stats();
  return { requests: count, seconds, rate: count / seconds, rateLimited: after.rateLimited - before.rateLimited, latenciesMs };
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}
