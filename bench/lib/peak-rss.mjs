// Preloaded into a CLI run by the benchmarks (`node --import`): at exit, writes the process's peak RSS in KiB
// to the file named by PPS_BENCH_RSS_FILE.
import { writeFileSync } from 'node:fs';

const file = process.env.PPS_BENCH_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS)));
