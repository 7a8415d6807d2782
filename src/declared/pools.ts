import type { SourceProblem } from '../errors.js';
import { keyLabel } from '../yaml/index.js';
import type { DeclaredPool } from './types.js';
import { byName, isValidName, NAME_RULE } from './resource-names.js';
import { splitPath } from './split-path.js';
import { readPoolFile, type PoolFile } from './pool-file.js';
import { withFile } from './settings-file.js';
import { readYamlText } from './read-code.js';
import type { FoundFile } from './walk.js';
import { tokenProblems } from './pool-tokens.js';

export const DEFAULT_MAX_AGENT_POOLS = 1;

/** Builds the declared agent pools from `agent-pools/*.yaml`, collecting every problem. */
export function readPools(
  files: readonly FoundFile[],
  maxAgentPools: number,
  realRoot: string,
  tokenDir: string | null = null,
  tokenSecrets: readonly string[] = [],
): { pools: DeclaredPool[]; problems: SourceProblem[] } {
  const problems: SourceProblem[] = [];
  const read = files.map((file): PoolFile | null => {
    const name = splitPath(file.rel).stem;
    if (!isValidName(name)) {
      problems.push({ file: file.rel, message: `"${name}" is not a valid agent pool name; ${NAME_RULE} (rename the file)` });
      return null;
    }
    const text = readYamlText(file, realRoot);
    if ('problem' in text) {
      problems.push(text.problem);
      return null;
    }
    return readPoolFile(name, file.rel, text.text);
  });
  const poolFiles = read.filter((item): item is PoolFile => item !== null).sort((a, b) => byName(a.pool, b.pool));
  for (const poolFile of poolFiles) problems.push(...poolFile.problems);
  problems.push(...previousNameProblems(poolFiles));
  problems.push(...tokenProblems(poolFiles, tokenDir, tokenSecrets));
  if (files.length > maxAgentPools) {
    const message =
      `declares ${files.length} agent pools (${files.map((file) => file.rel).join(', ')}) but max-agent-pools is ${maxAgentPools}: ` +
      `that is this tool's own guard against declaring more pools than meant, not the organization's limit. Remove pools, or raise it ` +
      `to what the organization allows with --max-agent-pools ${files.length} (or max-agent-pools: ${files.length} on the source in the config)`;
    problems.push({ file: 'agent-pools', message });
  }
  return { pools: poolFiles.map((poolFile) => poolFile.pool), problems };
}

/** A previous name must not be a declared pool's current name, nor be claimed by two pools. */
function previousNameProblems(poolFiles: readonly PoolFile[]): SourceProblem[] {
  const fileByName = new Map(poolFiles.map(({ pool }) => [pool.name, pool.file]));
  const claimedBy = new Map<string, string>();
  const problems: SourceProblem[] = [];
  for (const { pool, doc } of poolFiles) {
    for (const [index, previous] of pool.previousNames.entries()) {
      const path = ['previous-names', index];
      const at = `${keyLabel(path)} "${previous}"`;
      const line = doc?.lineOf(path);
      const owner = fileByName.get(previous);
      const claimant = claimedBy.get(previous);
      if (previous === pool.name) {
        problems.push(withFile(pool.file, line, `${at} is the pool's own name`));
      } else if (owner !== undefined) {
        problems.push(withFile(pool.file, line, `${at} is the name of another declared pool (${owner})`));
      } else if (claimant !== undefined) {
        problems.push(withFile(pool.file, line, `${at} is also claimed by ${claimant}; only one pool can be renamed from it`));
      }
      claimedBy.set(previous, claimant ?? pool.file);
    }
  }
  return problems;
}
