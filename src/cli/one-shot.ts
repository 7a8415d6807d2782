import { basename } from 'node:path';
import { createApiClient } from '../api/from-config.js';
import type { Config, SourceConfig } from '../config/types.js';
import { readDeclared } from '../declared/index.js';
import { formatProblem, UsageError, ValidationError } from '../errors.js';
import type { Logger } from '../logger.js';
import { openCodeCacheStore } from '../live/code-cache-file.js';
import { renderJson, renderMarkdown, renderText, shouldColor, summarize } from '../output/index.js';
import { runPass, type PassOutcome } from '../reconcile.js';
import { openSource } from '../source/index.js';
import type { CliArgs } from './args.js';

export interface CliIo {
  stdout: NodeJS.WriteStream;
  env: NodeJS.ProcessEnv;
  logger: Logger;
}

/** `--validate`: every source's declared repo, no API call. */
export async function runValidate(args: CliArgs, config: Config, io: CliIo): Promise<number> {
  let invalid = 0;
  for (const source of selectSources(config, args)) {
    const { dir } = await openSource(source, sourceContext(config, io)).checkout();
    try {
      const declared = await readDeclared(dir, { maxAgentPools: source.maxAgentPools });
      if (declared.policies.length === 0 && declared.pools.length === 0 && !source.allowEmpty) {
        invalid += 1;
        io.stdout.write(`${source.name}: declares nothing in ${dir}\n  ${emptySourceHint(dir)}\n`);
        continue;
      }
      io.stdout.write(`${source.name}: valid (${declared.policies.length} policies, ${declared.pools.length} agent pools)\n`);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      invalid += 1;
      io.stdout.write(`${source.name}: ${error.problems.length} problem(s) in ${dir}\n`);
      for (const problem of error.problems) io.stdout.write(`  ${formatProblem(problem)}\n`);
    }
  }
  return invalid > 0 ? 1 : 0;
}

/** What to check when a source declares nothing: most often the folder is wrong, e.g. `--source-dir` one level too deep. */
function emptySourceHint(dir: string): string {
  const folder = basename(dir);
  const tooDeep = folder === 'policies' || folder === 'agent-pools'
    ? `${dir} looks like the ${folder} folder itself: point at the folder that holds it. `
    : '';
  return `${tooDeep}A source holds policies/**/*.native, policies/**/*.rego and agent-pools/*.yaml; set allow-empty: true on the source (or pass --allow-empty) if it is meant to be empty.`;
}

/** `--reconcile` and `--dry-run`: one pass per source, the plan to stdout, logs to stderr. */
export async function runOnce(args: CliArgs, config: Config, io: CliIo): Promise<number> {
  const api = await createApiClient({ config, env: io.env, logger: io.logger });
  const mode = args.mode === 'reconcile' ? 'apply' : 'plan';
  const outcomes: PassOutcome[] = [];
  const caches = openCodeCacheStore({ stateDir: config.stateDir, logger: io.logger, persist: !args.noCache });
  try {
    for (const source of selectSources(config, args)) {
      const { dir, revision } = await openSource(source, sourceContext(config, io)).checkout();
      const codeCache = await caches.forOrganization(source.organization);
      outcomes.push(await runPass({ source, dir, revision, api, logger: io.logger, mode, prune: args.prune || undefined, force: args.force, codeCache, concurrency: config.api.concurrency }));
    }
  } finally {
    io.logger.info(api.stats(), 'api requests');
    await api.close();
    await caches.save();
  }
  io.stdout.write(render(args, outcomes, io));
  const summary = summarize(outcomes.map((o) => o.sourcePlan));
  const changes = summary.create + summary.update + summary.replace + summary.delete;
  if (outcomes.some((o) => !o.ok)) return 1;
  return args.detailedExitcode && changes > 0 ? 2 : 0;
}

function render(args: CliArgs, outcomes: PassOutcome[], io: CliIo): string {
  const plans = outcomes.map((o) => o.sourcePlan);
  if (args.output === 'json') return renderJson(plans);
  if (args.output === 'markdown') return renderMarkdown(plans);
  let text = renderText(plans, { color: shouldColor(io.stdout, io.env) });
  if (args.mode === 'reconcile') text += applySummary(outcomes);
  return text;
}

function applySummary(outcomes: PassOutcome[]): string {
  const results = outcomes.flatMap((o) => o.results);
  if (results.length === 0) return '';
  const count = (outcome: string, action?: string) =>
    results.filter((r) => r.outcome === outcome && (action === undefined || r.change.action === action)).length;
  const failed = count('failed');
  const line = `${count('applied', 'create')} created, ${count('applied', 'update')} updated, ${count('applied', 'replace')} replaced, ${count('applied', 'delete')} deleted`;
  return failed > 0
    ? `\nApply finished with errors: ${line}, ${failed} failed.\n`
    : `\nApply complete! Resources: ${line}.\n`;
}

function sourceContext(config: Config, io: CliIo) {
  return { stateDir: config.stateDir, env: io.env, logger: io.logger };
}

function selectSources(config: Config, args: CliArgs): SourceConfig[] {
  if (args.source === null) return config.sources;
  const source = config.sources.find((s) => s.name === args.source);
  if (source === undefined) {
    throw new UsageError(`no source named "${args.source}" (sources: ${config.sources.map((s) => s.name).join(', ')})`);
  }
  return [source];
}
