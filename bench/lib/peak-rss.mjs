// Preloaded into a CLI run by the benchmarks (`node --import`): at exit, writes the process's peak RSS in KiB
// to the file named by PPS_BENCH_RSS_FILE. On Linux that is VmHWM from /proc/self/status: getrusage's maxRSS
// (process.resourceUsage) survives exec, so a child spawned by a large benchmark process would report the
// benchmark's own RSS at the fork whenever it is the larger.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.PPS_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(peakKib())));

function peakKib() {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return Number(hwm[1]);
  } catch {
    // Not Linux.
  }
  return process.resourceUsage().maxRSS;
}
