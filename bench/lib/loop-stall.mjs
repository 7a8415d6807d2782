// Preloaded into a daemon by the benchmarks (`node --import`): the longest delay of the event loop (perf_hooks'
// monitorEventLoopDelay, 10 ms resolution), in milliseconds, written to PPS_BENCH_STALL_FILE. The benchmark sends
// SIGUSR2 once the daemon listens (its start-up pass starts then: loading the modules is not counted), which starts
// the count afresh, and again when the pass is over, which writes it (the stop that follows is not counted either).
import { writeFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.PPS_BENCH_STALL_FILE;
if (file) {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  let started = false;
  process.on('SIGUSR2', () => {
    if (started) writeFileSync(file, String(Math.round(histogram.max / 1e6)));
    else histogram.reset();
    started = true;
  });
}
