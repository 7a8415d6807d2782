/**
 * The first value `probe` answers (not undefined; a probe that throws counts as not yet), asked every `everyMs`, or an
 * error after `timeoutMs`. The benchmarks' one wait: its step is as fine as the figure it measures needs.
 */
export async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000, everyMs = 50): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await Promise.resolve().then(probe).catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
