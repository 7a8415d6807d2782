import type { Config } from '../config/types.js';
import { declaresNothing, emptySourceHint } from '../declared/empty-source.js';
import { readDeclared } from '../declared/index.js';
import { formatProblem, ValidationError } from '../errors.js';
import { printable } from '../output/printable.js';
import { openSource } from '../source/index.js';
import type { CliArgs } from './args.js';
import { fileProblem, writeFindings, type Finding } from './error-lines.js';
import { selectSources, sourceContext, type CliIo } from './sources.js';
import { count } from '../plural.js';

/** `--validate`: every source's declared repo, no API call; warnings (files that look declared but are not read) are listed too. */
export async function runValidate(args: CliArgs, config: Config, io: CliIo): Promise<number> {
  let invalid = 0;
  const findings: Finding[] = [];
  for (const source of selectSources(config, args)) {
    const { dir } = await openSource(source, sourceContext(config, io)).checkout();
    try {
      const declared = await readDeclared(dir, { maxAgentPools: source.maxAgentPools, strictImports: source.strictImports === true, env: io.env });
      if (declaresNothing(declared) && !source.allowEmpty) {
        invalid += 1;
        io.stdout.write(`${source.name}: declares nothing in ${dir}\n  ${emptySourceHint(dir)}\n`);
        findings.push({ level: 'error', message: `${source.name}: declares nothing in ${dir}. ${emptySourceHint(dir)}` });
        continue;
      }
      const sets = declared.policySets ?? [];
      const setCount = sets.length === 0 ? '' : `, ${count(sets.length, 'policy set')}`;
      io.stdout.write(`${source.name}: valid (${count(declared.policies.length, 'policy', 'policies')}${setCount}, ${count(declared.pools.length, 'agent pool')})\n`);
      for (const warning of declared.warnings ?? []) io.stdout.write(`  warning: ${printable(warning)}\n`);
      findings.push(...(declared.warnings ?? []).map((warning) => ({ level: 'warning' as const, message: `${source.name}: ${warning}` })));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      invalid += 1;
      io.stdout.write(`${source.name}: ${count(error.problems.length, 'problem')} in ${dir}\n`);
      for (const problem of error.problems) io.stdout.write(`  ${printable(formatProblem(problem))}\n`);
      findings.push(...error.problems.map((problem) => ({ level: 'error' as const, ...(fileProblem(formatProblem(problem), dir) ?? { message: formatProblem(problem) }) })));
    }
  }
  if (io.stderr !== undefined) writeFindings(findings, io.stderr, io.env);
  return invalid > 0 ? 1 : 0;
}
