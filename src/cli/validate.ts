import { basename } from 'node:path';
import type { Config } from '../config/types.js';
import { readDeclared } from '../declared/index.js';
import { formatProblem, ValidationError } from '../errors.js';
import { openSource } from '../source/index.js';
import type { CliArgs } from './args.js';
import { selectSources, sourceContext, type CliIo } from './sources.js';

/** `--validate`: every source's declared repo, no API call; warnings (files that look declared but are not read) are listed too. */
export async function runValidate(args: CliArgs, config: Config, io: CliIo): Promise<number> {
  let invalid = 0;
  for (const source of selectSources(config, args)) {
    const { dir } = await openSource(source, sourceContext(config, io)).checkout();
    try {
      const declared = await readDeclared(dir, { maxAgentPools: source.maxAgentPools, strictImports: source.strictImports === true });
      if (declared.policies.length === 0 && declared.pools.length === 0 && !source.allowEmpty) {
        invalid += 1;
        io.stdout.write(`${source.name}: declares nothing in ${dir}\n  ${emptySourceHint(dir)}\n`);
        continue;
      }
      io.stdout.write(`${source.name}: valid (${declared.policies.length} policies, ${declared.pools.length} agent pools)\n`);
      for (const warning of declared.warnings ?? []) io.stdout.write(`  warning: ${warning}\n`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      invalid += 1;
      io.stdout.write(`${source.name}: ${error.problems.length} problem(s) in ${dir}\n`);
      for (const problem of error.problems) io.stdout.write(`  ${formatProblem(problem)}\n`);
    }
  }
  return invalid > 0 ? 1 : 0;
}

function emptySourceHint(dir: string): string {
  const folder = basename(dir);
  const tooDeep = folder === 'policies' || folder === 'agent-pools'
    ? `${dir} looks like the ${folder} folder itself: point at the folder that holds it. `
    : '';
  return `${tooDeep}A source holds policies/**/*.native, policies/**/*.rego and agent-pools/*.yaml; set allow-empty: true on the source (or pass --allow-empty) if it is meant to be empty.`;
}
