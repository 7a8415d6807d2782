// Preloaded into a daemon by the benchmarks (`node --import`): at exit, writes the longest delay of the event loop
// seen since start (perf_hooks' monitorEventLoopDelay, 10 ms resolution) in milliseconds to PPS_BENCH_STALL_FILE.
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.PPS_BENCH_STALL_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  process.on('exit', () => writeFileSync(file, String(Math.round(histogram.max / 1e6))));
}
