// Preloaded into a CLI run by the benchmarks (`node --import`): at exit, writes the process's CPU time (user + system)
// in milliseconds to the file named by PPS_BENCH_CPU_FILE. On a busy machine it says more than the wall time.
import { writeFileSync } from 'node:fs';

const file = process.env.PPS_BENCH_CPU_FILE;
if (file) {
  process.on('exit', () => {
    const { userCPUTime, systemCPUTime } = process.resourceUsage();
    writeFileSync(file, String(Math.round((userCPUTime + systemCPUTime) / 1000)));
  });
}
