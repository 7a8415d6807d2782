/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the order of `items`. Rejects with the
 * first failure, like Promise.all, and starts no call after it: the results are lost anyway (a live read that failed
 * also aborts the calls in flight, see live/read-live.ts).
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T);
      } catch (error) {
        next = items.length;
        throw error;
      }
    }
  }
  const workers = Array.from({ length: Math.min(limit, items.length) }, () => worker());
  await Promise.all(workers);
  return results;
}
