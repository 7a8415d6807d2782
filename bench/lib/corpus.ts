/**
 * Where the benchmarks find real-world declared repos: the full libraries in `../shared/corpus` (beside
 * the repository) when that folder exists, else the trimmed copies the tests use, saying so.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FULL = path.resolve(REPO, '../shared/corpus');
const VENDORED = path.join(REPO, 'test/fixtures/corpus');

export interface Corpus {
  root: string;
  /** Each folder of `root` that is a declared repo (holds `policies/`), sorted. */
  names: string[];
  full: boolean;
}

/** The corpus at `override`, else the full one when present, else the vendored one; prints which. */
export function findCorpus(override?: string): Corpus {
  const full = override === undefined && existsSync(FULL);
  const root = override === undefined ? (full ? FULL : VENDORED) : path.resolve(override);
  const names = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, entry.name, 'policies')))
    .map((entry) => entry.name)
    .sort();
  if (override === undefined && !full) {
    console.log(`note: ${FULL} is absent; using the trimmed corpus in ${path.relative(REPO, VENDORED)}, so figures are not comparable with the full one`);
  }
  console.log(`corpus ${root}: ${names.join(', ')}`);
  return { root, names, full };
}
