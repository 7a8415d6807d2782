import type { Config } from '../config/types.js';
import { declaresNothing, emptySourceHint } from '../declared/empty-source.js';
import { readDeclared } from '../declared/index.js';
import { formatProblem, ValidationError } from '../errors.js';
import { escapeText, inlineCode } from '../output/markdown-escape.js';
import { printable } from '../output/printable.js';
import { openSource } from '../source/index.js';
import type { CliArgs } from './args.js';
import { fileProblem, writeFindings, type Finding } from './error-lines.js';
import { selectSources, sourceContext, type CliIo } from './sources.js';
import { count } from '../plural.js';

/** What `--validate` found of one source: its counts when it is valid, else its errors; warnings either way. */
interface SourceCheck {
  name: string;
  dir: string;
  /** Null when the source is not valid. */
  counts: { policies: number; policySets: number; agentPools: number } | null;
  /** The line saying why it is not valid (`declares nothing in DIR`, `2 problems in DIR`), then one line per problem. */
  errors: string[];
  warnings: string[];
}

/**
 * `--validate`: every source's declared repo, no API call; warnings (files that look declared but are not read) are
 * listed too. `--output json` gives the same as one document (`format_version` "1"), `markdown` as a list for a
 * pull-request comment or a CI step summary; errors go to stderr as annotations under GitHub Actions, in every format.
 */
export async function runValidate(args: CliArgs, config: Config, io: CliIo): Promise<number> {
  const checks: SourceCheck[] = [];
  const findings: Finding[] = [];
  for (const source of selectSources(config, args)) {
    const { dir } = await openSource(source, sourceContext(config, io)).checkout();
    const check: SourceCheck = { name: source.name, dir, counts: null, errors: [], warnings: [] };
    checks.push(check);
    try {
      const declared = await readDeclared(dir, { maxAgentPools: source.maxAgentPools, strictImports: source.strictImports === true, env: io.env,
        ...(source.parameters === undefined ? {} : { parameters: source.parameters }), parametersAllowedOnly: true, tokenDir: source.tokenDir ?? null, tokenSecrets: source.tokenSecrets ?? [],
      });
      if (declaresNothing(declared) && !source.allowEmpty) {
        check.errors.push(`declares nothing in ${dir}`, emptySourceHint(dir));
        findings.push({ level: 'error', message: `${source.name}: declares nothing in ${dir}. ${emptySourceHint(dir)}` });
        continue;
      }
      check.counts = { policies: declared.policies.length, policySets: (declared.policySets ?? []).length, agentPools: declared.pools.length };
      check.warnings.push(...(declared.warnings ?? []));
      findings.push(...(declared.warnings ?? []).map((warning) => ({ level: 'warning' as const, message: `${source.name}: ${warning}` })));
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      check.errors.push(`${count(error.problems.length, 'problem')} in ${dir}`, ...error.problems.map(formatProblem));
      findings.push(...error.problems.map((problem) => ({ level: 'error' as const, ...(fileProblem(formatProblem(problem), dir) ?? { message: formatProblem(problem) }) })));
    }
  }
  io.stdout.write(args.output === 'json' ? validationJson(checks) : args.output === 'markdown' ? validationMarkdown(checks) : validationText(checks));
  if (io.stderr !== undefined) writeFindings(findings, io.stderr, io.env);
  return checks.some((check) => check.counts === null) ? 1 : 0;
}

/** `default: valid (2 policies, 1 policy set, 0 agent pools)`; the policy sets only when there are any. */
function describeCounts(counts: NonNullable<SourceCheck['counts']>): string {
  const sets = counts.policySets === 0 ? '' : `, ${count(counts.policySets, 'policy set')}`;
  return `valid (${count(counts.policies, 'policy', 'policies')}${sets}, ${count(counts.agentPools, 'agent pool')})`;
}

function validationText(checks: readonly SourceCheck[]): string {
  const lines: string[] = [];
  for (const check of checks) {
    if (check.counts === null) {
      const [head, ...rest] = check.errors;
      lines.push(`${check.name}: ${head ?? 'not valid'}`, ...rest.map((line) => `  ${printable(line)}`));
      continue;
    }
    lines.push(`${check.name}: ${describeCounts(check.counts)}`, ...check.warnings.map((warning) => `  warning: ${printable(warning)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** One document; key order fixed by construction, so that it is byte-for-byte deterministic. */
function validationJson(checks: readonly SourceCheck[]): string {
  const sources = checks.map((check) => ({
    name: check.name,
    valid: check.counts !== null,
    policies: check.counts?.policies ?? null,
    policy_sets: check.counts?.policySets ?? null,
    agent_pools: check.counts?.agentPools ?? null,
    warnings: check.warnings,
    errors: check.errors,
  }));
  return `${JSON.stringify({ format_version: '1', sources }, null, 2)}\n`;
}

function validationMarkdown(checks: readonly SourceCheck[]): string {
  const lines = ['### policy-pool-sync: declared repo check', ''];
  for (const check of checks) {
    if (check.counts === null) {
      const [head, ...rest] = check.errors;
      lines.push(`- ❌ ${inlineCode(check.name)}: ${escapeText(head ?? 'not valid')}`, ...rest.map((line) => `  - ${inlineCode(line)}`));
      continue;
    }
    lines.push(`- ✅ ${inlineCode(check.name)}: ${describeCounts(check.counts)}`, ...check.warnings.map((warning) => `  - ⚠️ ${escapeText(warning)}`));
  }
  return `${lines.join('\n')}\n`;
}
