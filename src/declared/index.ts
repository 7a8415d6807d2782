import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { formatProblem, ValidationError, type SourceProblem } from '../errors.js';
import { importProblems, importWarnings } from './imports.js';
import type { DeclaredState, ReadOptions } from './types.js';
import { NO_CACHE } from './declared-cache.js';
import { loadPathFilter, POLICY_FILE, POOL_FILE, policyNearMiss, poolNearMiss } from './path-filter.js';
import { readPolicies } from './policies.js';
import { DEFAULT_MAX_AGENT_POOLS, readPools } from './pools.js';
import { DEFAULT_WALK_LIMITS, walkSource } from './walk.js';
import { count } from '../plural.js';

export type { AgentCleanup, CodeSource, DeclaredPolicy, DeclaredPool, DeclaredState, ReadOptions } from './types.js';
export {
  createPathFilter, isDeclaredPath, loadPathFilter, SYNCIGNORE_FILE, watchPathFilter, type PathFilter,
} from './path-filter.js';
export { createDeclaredCache, type DeclaredCache } from './declared-cache.js';
export { codeAt, codeBody, readVerifiedCode, withCodeTexts, type CodeAt, type CodeBody } from './code-body.js';
export { DEFAULT_WALK_LIMITS, type WalkLimits } from './walk.js';
export { isValidName } from './resource-names.js';
export { lfsPointerProblem } from './lfs-pointer.js';
export { parseDuration } from './duration.js';

/**
 * Reads the declared repo at `dir` into typed, validated desired state, sorted by name. Policy code is hashed, not
 * kept (`withCodeTexts` loads the texts a plan shows).
 * @throws ValidationError carrying every problem found, each naming its file (and line where YAML gives one).
 */
export async function readDeclared(dir: string, options: ReadOptions = {}): Promise<DeclaredState> {
  const root = path.resolve(dir);
  const realRoot = await realpath(root).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
    throw new ValidationError(`The declared repo ${root} does not exist`, [{ file: '.', message: `source folder ${root} does not exist` }]);
  });
  const loaded = loadPathFilter(root, realRoot);
  if ('problem' in loaded) throw invalid(root, [loaded.problem]);
  const cache = options.cache ?? NO_CACHE;
  const walked = await walkSource(
    [
      { start: 'policies', maxDepth: Number.POSITIVE_INFINITY, wanted: (rel) => POLICY_FILE.test(rel), nearMiss: policyNearMiss },
      { start: 'agent-pools', maxDepth: 0, wanted: (rel) => POOL_FILE.test(rel), nearMiss: poolNearMiss },
    ],
    { root, realRoot, filter: loaded.filter, limits: options.limits ?? DEFAULT_WALK_LIMITS, ...(options.signal ? { signal: options.signal } : {}) },
  );
  const policyFiles = walked.files.filter((file) => file.rel.startsWith('policies/'));
  const poolFiles = walked.files.filter((file) => file.rel.startsWith('agent-pools/'));
  const context = { realRoot, cache, ...(options.signal ? { signal: options.signal } : {}) };
  const policies = await readPolicies(policyFiles, context);
  const pools = readPools(poolFiles, options.maxAgentPools ?? DEFAULT_MAX_AGENT_POOLS, realRoot);
  cache.finish();
  const strict = options.strictImports === true;
  const problems = [...walked.problems, ...policies.problems, ...pools.problems, ...(strict ? importProblems(policies.unresolvedImports) : [])];
  if (problems.length > 0) throw invalid(root, problems);
  const imports = strict ? [] : importWarnings(policies.unresolvedImports, '--strict-imports makes this an error');
  return { policies: policies.policies, pools: pools.pools, warnings: [...[...walked.warnings, ...policies.warnings].sort(), ...imports] };
}

function invalid(root: string, problems: SourceProblem[]): ValidationError {
  const sorted = problems.sort(byFileAndLine);
  const summary = `The declared repo ${root} has ${count(sorted.length, 'problem')}:`;
  return new ValidationError([summary, ...sorted.map((problem) => `  ${formatProblem(problem)}`)].join('\n'), sorted);
}

function byFileAndLine(a: SourceProblem, b: SourceProblem): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return (a.line ?? 0) - (b.line ?? 0);
}
