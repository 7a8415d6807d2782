import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { formatProblem, ValidationError, type SourceProblem } from '../errors.js';
import type { DeclaredState, ReadOptions } from './types.js';
import { loadPathFilter, POLICY_FILE, POOL_FILE } from './path-filter.js';
import { readPolicies } from './policies.js';
import { DEFAULT_MAX_AGENT_POOLS, readPools } from './pools.js';
import { walkFolder, type WalkOptions } from './walk.js';

export type { AgentCleanup, DeclaredPolicy, DeclaredPool, DeclaredState, ReadOptions } from './types.js';
export { createPathFilter, isDeclaredPath, loadPathFilter, SYNCIGNORE_FILE, type PathFilter } from './path-filter.js';
export { isValidName } from './resource-names.js';
export { parseDuration } from './duration.js';

/**
 * Reads the declared repo at `dir` into typed, validated desired state, sorted by name.
 * @throws ValidationError carrying every problem found, each naming its file (and line where YAML gives one).
 */
export async function readDeclared(dir: string, options: ReadOptions = {}): Promise<DeclaredState> {
  const root = path.resolve(dir);
  const realRoot = await realpath(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    throw new ValidationError(`The declared repo ${root} does not exist`, [{ file: '.', message: `source folder ${root} does not exist` }]);
  });
  const filter = await loadPathFilter(root);
  const walk: Omit<WalkOptions, 'wanted' | 'maxDepth'> = { root, realRoot, filter };
  const [policyFiles, poolFiles] = await Promise.all([
    walkFolder('policies', { ...walk, wanted: (rel) => POLICY_FILE.test(rel), maxDepth: Number.POSITIVE_INFINITY }),
    walkFolder('agent-pools', { ...walk, wanted: (rel) => POOL_FILE.test(rel), maxDepth: 0 }),
  ]);
  const [policies, pools] = await Promise.all([
    readPolicies(policyFiles.files),
    readPools(poolFiles.files, options.maxAgentPools ?? DEFAULT_MAX_AGENT_POOLS),
  ]);
  const problems = [...policyFiles.problems, ...poolFiles.problems, ...policies.problems, ...pools.problems];
  if (problems.length > 0) {
    const sorted = problems.sort(byFileAndLine);
    const summary = `The declared repo ${root} has ${sorted.length} problem${sorted.length === 1 ? '' : 's'}:`;
    throw new ValidationError([summary, ...sorted.map((problem) => `  ${formatProblem(problem)}`)].join('\n'), sorted);
  }
  return { policies: policies.policies, pools: pools.pools };
}

function byFileAndLine(a: SourceProblem, b: SourceProblem): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return (a.line ?? 0) - (b.line ?? 0);
}
