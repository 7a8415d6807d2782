import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { formatProblem, ValidationError, type SourceProblem } from '../errors.js';
import { importProblems, importWarnings } from './imports.js';
import { withSensitiveDigests } from './sensitive-digest.js';
import type { DeclaredState, ReadOptions } from './types.js';
import { NO_CACHE } from './declared-cache.js';
import { loadPathFilter, POLICY_FILE, POOL_FILE, policyNearMiss, poolNearMiss } from './path-filter.js';
import { readPolicies } from './policies.js';
import { withMemberEnforcement } from './member-enforcement.js';
import { DEFAULT_MAX_AGENT_POOLS, readPools } from './pools.js';
import { DEFAULT_WALK_LIMITS, walkSource, type FoundFile, type WalkOptions } from './walk.js';
import { count } from '../plural.js';
import { inFolder, readPolicySets, setFolders, YAML_SET_FILE } from './policy-sets.js';
import { ownSetFiles } from './policy-set-files.js';
import { SET_CONFIG_FILES } from './policy-set-config.js';

/** A set's config file under policies/: its folder is a set, not policies. */
function isSetConfig(rel: string): boolean {
  return path.posix.basename(rel) in SET_CONFIG_FILES;
}

export type { AgentCleanup, CodeSource, DeclaredPolicy, DeclaredPolicySet, DeclaredPool, DeclaredState, ReadOptions, SetContent, SetParameter } from './types.js';
export { SET_SETTINGS_FILE } from './policy-sets.js';
export { sensitiveValue } from './policy-set-parameters.js';
export { MAX_SET_ARCHIVE_BYTES, MAX_SET_FILES, MAX_SET_TAR_BYTES } from './policy-set-content.js';
export { SET_CONFIG_FILES } from './policy-set-config.js';
export { packSet, type SetArchive } from './policy-set-archive.js';
export { setArchiveBody } from './policy-set-body.js';
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
  const walkOptions = { root, realRoot, filter: loaded.filter, limits: options.limits ?? DEFAULT_WALK_LIMITS, ...(options.signal ? { signal: options.signal } : {}) };
  const walked = await walkSource(
    [
      { start: 'policies', maxDepth: Number.POSITIVE_INFINITY, wanted: (rel) => POLICY_FILE.test(rel) || isSetConfig(rel), nearMiss: policyNearMiss },
      { start: 'agent-pools', maxDepth: 0, wanted: (rel) => POOL_FILE.test(rel), nearMiss: poolNearMiss },
      { start: 'policy-sets', maxDepth: Number.POSITIVE_INFINITY, wanted: () => true, nearMiss: () => null },
    ],
    walkOptions,
  );
  const elsewhere = await walkElsewhere(walkOptions);
  const sets = setFolders([...walked.files, ...elsewhere.files]);
  // A set outside policy-sets/ is read whole: every file of its folder is packed, and none is read as a policy.
  const setsOutside = sets.folders.filter((folder) => !folder.startsWith('policy-sets/'));
  const inSets = setsOutside.length === 0 ? null : await walkSource(
    setsOutside.map((start) => ({ start, maxDepth: Number.POSITIVE_INFINITY, wanted: () => true, nearMiss: () => null })), walkOptions,
  );
  const outsideSets = (rel: string) => !inFolder(rel, sets.folders);
  const policyFiles = walked.files.filter((file) => file.rel.startsWith('policies/') && outsideSets(file.rel));
  const poolFiles = walked.files.filter((file) => file.rel.startsWith('agent-pools/'));
  const setFiles = [...walked.files.filter((file) => file.rel.startsWith('policy-sets/')), ...(inSets?.files ?? [])];
  const yamlSetFiles = setFiles.filter((file) => YAML_SET_FILE.test(file.rel));
  const context = { realRoot, cache, ...(options.signal ? { signal: options.signal } : {}) };
  const policies = await readPolicies(policyFiles, context);
  const pools = readPools(poolFiles, options.maxAgentPools ?? DEFAULT_MAX_AGENT_POOLS, realRoot, options.tokenDir ?? null, options.tokenSecrets ?? []);
  const own = await ownSetFiles(sets.folders, setFiles, realRoot, loaded.filter);
  const policySets = await readPolicySets(sets.folders, own.files, yamlSetFiles, realRoot, {
    env: options.env ?? process.env, realRoot, allowedOnly: options.parametersAllowedOnly === true,
    ...(options.parameters === undefined ? {} : { allowance: options.parameters }),
  });
  cache.finish();
  const members = withMemberEnforcement(policies.policies, policySets.sets);
  const strict = options.strictImports === true;
  // Near misses inside a set under policies/ are its files, not policies: its own walk reports what is really wrong.
  const walkProblems = [...walked.problems.filter((p) => outsideSets(p.file) || p.file.startsWith('policy-sets/')), ...elsewhere.problems, ...(inSets?.problems ?? [])];
  const problems = [
    ...walkProblems, ...sets.problems, ...own.problems, ...policies.problems, ...pools.problems, ...policySets.problems, ...members.problems,
    ...(strict ? importProblems(policies.unresolvedImports) : []),
  ];
  if (problems.length > 0) throw invalid(root, problems);
  const imports = strict ? [] : importWarnings(policies.unresolvedImports, '--strict-imports makes this an error');
  const stray = setFiles.filter((file) => outsideSets(file.rel) && !YAML_SET_FILE.test(file.rel)).map((file) => `${file.rel}: is not read: policy-sets/ holds <name>.yaml files and set folders with a sentinel.hcl, native.hcl or policies.hcl`);
  const warnings = [...walked.warnings.filter((w) => outsideSets(w.slice(0, w.indexOf(':')))), ...policies.warnings, ...stray].sort();
  const keyed = options.keyedDigest === undefined ? policySets.sets : withSensitiveDigests(policySets.sets, options.keyedDigest);
  const declaredSets = keyed.length === 0 ? {} : { policySets: keyed };
  return { policies: members.policies, pools: pools.pools, ...declaredSets, warnings: [...warnings, ...imports] };
}

/** The folders whose walk reads policies, pools and YAML sets; set folders anywhere else are found by `walkElsewhere`. */
const READ_FOLDERS = new Set(['policies', 'policy-sets', 'agent-pools']);

/**
 * Finds the set config files outside `policies/`, `policy-sets/` and `agent-pools/`: a set folder is a set wherever it
 * sits. Only what could hide a set is a problem here (a folder that cannot be read, a repo over the walk's limits, a
 * config file that is a broken link); links elsewhere in the repo are not this tool's files.
 */
async function walkElsewhere(options: WalkOptions): Promise<{ files: FoundFile[]; problems: SourceProblem[] }> {
  const filter = { isIgnored: (rel: string, isDirectory: boolean) => READ_FOLDERS.has(rel) || options.filter.isIgnored(rel, isDirectory) };
  const walked = await walkSource([{ start: '', maxDepth: Number.POSITIVE_INFINITY, wanted: isSetConfig, nearMiss: () => null }], { ...options, filter });
  const problems = walked.problems.filter((p) => p.file === '.' || isSetConfig(p.file) || p.message.startsWith('cannot be read'));
  const where = (p: SourceProblem) => (p.file === '.' ? { ...p, message: p.message.replace('under policies/ and agent-pools/', 'in the rest of the repo (searched for policy set folders)') } : p);
  return { files: walked.files.filter((file) => file.rel.includes('/')), problems: problems.map(where) };
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
