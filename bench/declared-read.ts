/**
 * Reads each corpus (bench/corpus.ts says which) as a declared repo and prints the read time and heap used.
 * Run: node --expose-gc --import tsx bench/declared-read.ts [corpus folder]
 */
import path from 'node:path';
import { readDeclared } from '../src/declared/index.js';
import { findCorpus } from './lib/corpus.js';

const RUNS = 5;

const corpus = findCorpus(process.argv[2]);
const gc = (globalThis as { gc?: () => void }).gc;
const collect = gc ?? ((): void => undefined);

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function main(): Promise<void> {
  console.log(`${RUNS} runs each${gc ? '' : ' (run with --expose-gc for steadier heap figures)'}`);
  for (const name of corpus.names) {
    const times: number[] = [];
    let heapDelta = 0;
    let count = 0;
    for (let run = 0; run < RUNS; run += 1) {
      collect();
      const heapBefore = process.memoryUsage().heapUsed;
      const started = performance.now();
      const state = await readDeclared(path.join(corpus.root, name));
      times.push(performance.now() - started);
      heapDelta = Math.max(heapDelta, process.memoryUsage().heapUsed - heapBefore);
      count = state.policies.length;
    }
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
    console.log(
      `${name.padEnd(18)} ${String(count).padStart(4)} policies  first ${times[0]?.toFixed(1)} ms  ` +
        `median ${median.toFixed(1)} ms  heap +${megabytes(heapDelta)} (max over runs)  heap total ${megabytes(process.memoryUsage().heapUsed)}`,
    );
  }
}

await main();
