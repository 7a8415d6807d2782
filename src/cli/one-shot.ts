import { readFile, writeFile } from 'node:fs/promises';
import { createApiClient } from '../api/from-config.js';
import type { Config, SourceConfig } from '../config/types.js';
import { errorMessage, UsageError } from '../errors.js';
import { openCodeCacheStore } from '../live/code-cache-file.js';
import { renderJson, renderMarkdown, renderSavedPlan, renderText, shouldColor, summarize } from '../output/index.js';
import type { SourcePlan } from '../plan/types.js';
import { ProgressReporter } from '../progress.js';
import { parseSavedPlan, type SavedSource } from '../plan/saved.js';
import { runPass, type PassOutcome } from '../reconcile.js';
import { openSource } from '../source/index.js';
import { onStopSignal, SIGNAL_EXIT_CODE, type StopSignal } from '../signals.js';
import { NOT_STARTED } from '../apply/apply.js';
import type { CliArgs } from './args.js';
import { selectSources, sourceContext, type CliIo } from './sources.js';
import { oneShotNotifications } from './one-shot-notify.js';

export type { CliIo } from './sources.js';

/**
 * `--reconcile` and `--dry-run`: one pass per source, the plan to stdout, logs and progress to stderr.
 * `--reconcile` prints each source's plan (text or Markdown) before the first write for it, then the outcome of
 * the apply; its JSON is one document at the end, carrying the plan and each change's outcome.
 */
export async function runOnce(args: CliArgs, config: Config, io: CliIo): Promise<number> {
  const api = await createApiClient({ config, env: io.env, logger: io.logger });
  const mode = args.mode === 'reconcile' ? 'apply' : 'plan';
  const printsEarly = mode === 'apply' && args.output !== 'json';
  const progress = new ProgressReporter({ logger: io.logger, terminal: io.terminal ?? null });
  const outcomes: PassOutcome[] = [];
  const saved = args.plan === null ? null : await readSavedPlan(args.plan, config, args);
  const sources = saved === null ? selectSources(config, args) : saved.map(([source]) => source);
  const caches = openCodeCacheStore({ stateDir: config.stateDir, logger: io.logger, persist: !args.noCache });
  const interrupt = interruption(config, io);
  const notify = oneShotNotifications(config, mode, io.env, io.logger);
  try {
    for (const [index, source] of sources.entries()) {
      if (interrupt.stop.aborted) {
        io.stdout.write(`\nSource "${source.name}" was not run: ${errorMessage(interrupt.stop.reason)}.\n`);
        continue;
      }
      const signal = passSignal(source.name, args.timeoutSeconds, interrupt.abort);
      const { dir, revision } = await openSource(source, sourceContext(config, io)).checkout(signal);
      const codeCache = await caches.forOrganization(source.organization);
      notify.started(source, revision);
      let printed = false;
      const outcome = await runPass({
        source, dir, revision, api: api.withSignal(signal), logger: io.logger, mode, prune: args.prune || undefined, force: args.force,
        codeCache, concurrency: config.api.concurrency, signal, stop: interrupt.stop,
        ...(saved === null ? {} : { saved: saved[index]![1] }),
        onProgress: (p) => progress.update(p),
        onPlan: printsEarly
          ? (planned) => {
              progress.end();
              io.stdout.write(renderPlan(args, [planned], io));
              printed = true;
            }
          : undefined,
      });
      progress.end();
      outcomes.push(outcome);
      notify.finished(source, revision, outcome);
      if (printsEarly) io.stdout.write(printed ? renderApplied(args, outcome) : renderPlan(args, [outcome.sourcePlan], io));
    }
  } finally {
    interrupt.remove();
    progress.end();
    io.logger.info(api.stats(), 'api requests');
    await api.close();
    await caches.save();
    await notify.close();
  }
  if (args.out !== null) {
    await writeFile(args.out, renderSavedPlan(outcomes.map((o) => o.sourcePlan)));
    io.logger.info({ file: args.out }, 'plan saved; apply it with --reconcile --plan');
  }
  if (!printsEarly) io.stdout.write(render(args, outcomes, io));
  else if (args.output === 'text') io.stdout.write(applySummary(outcomes));
  const summary = summarize(outcomes.map((o) => o.sourcePlan));
  const changes = summary.create + summary.update + summary.replace + summary.delete;
  if (interrupt.received !== null) return SIGNAL_EXIT_CODE[interrupt.received];
  if (outcomes.some((o) => !o.ok)) return 1;
  return args.detailedExitcode && changes > 0 ? 2 : 0;
}

function renderPlan(args: CliArgs, plans: SourcePlan[], io: CliIo): string {
  if (args.output === 'markdown') return renderMarkdown(plans);
  return renderText(plans, { color: shouldColor(io.stdout, io.env) });
}

/** Dry runs, and the JSON of a reconcile: every source at once. */
function render(args: CliArgs, outcomes: PassOutcome[], io: CliIo): string {
  const plans = outcomes.map((o) => o.sourcePlan);
  if (args.output === 'json') {
    return renderJson(plans, args.mode === 'reconcile' ? { results: outcomes.map((o) => o.results) } : {});
  }
  return renderPlan(args, plans, io);
}

/** What the apply of one source came to, printed after its plan: each failure, then the counts. */
function renderApplied(args: CliArgs, outcome: PassOutcome): string {
  const failures = outcome.results.filter((r) => r.outcome === 'failed');
  const planErrors = outcome.sourcePlan.plan?.errors.length ?? 0;
  if (outcome.results.length === 0) {
    return planErrors > 0 ? `\nNothing applied for source "${outcome.sourcePlan.name}": the plan has errors.\n` : '';
  }
  const counts = outcomeCounts([outcome]);
  if (args.output === 'markdown') {
    const lines = ['', `#### Apply result for \`${outcome.sourcePlan.name}\``, '', `${counts}.`, ''];
    for (const f of failures) lines.push(`- ❌ ${f.change.action} ${f.change.resource} \`${f.change.name}\` failed: ${(f.message ?? 'unknown error').replace(/\n/g, ' ')}`);
    for (const s of outcome.results.filter((r) => r.message === NOT_STARTED)) lines.push(`- ⏹ ${s.change.action} ${s.change.resource} \`${s.change.name}\`: not applied`);
    return `${lines.join('\n')}\n`;
  }
  const lines = ['', `Applied source "${outcome.sourcePlan.name}": ${counts}.`];
  for (const f of failures) lines.push(`  - ${f.change.action} ${f.change.resource} "${f.change.name}" failed: ${f.message ?? 'unknown error'}`);
  for (const s of outcome.results.filter((r) => r.message === NOT_STARTED)) lines.push(`  - ${s.change.action} ${s.change.resource} "${s.change.name}": not applied`);
  return `${lines.join('\n')}\n`;
}

function outcomeCounts(outcomes: PassOutcome[]): string {
  const results = outcomes.flatMap((o) => o.results);
  const count = (outcome: string, action?: string) =>
    results.filter((r) => r.outcome === outcome && (action === undefined || r.change.action === action)).length;
  const line = `${count('applied', 'create')} created, ${count('applied', 'update')} updated, ${count('applied', 'replace')} replaced, ${count('applied', 'delete')} deleted`;
  const failed = count('failed');
  const skipped = count('skipped');
  return `${line}${failed > 0 ? `, ${failed} failed` : ''}${skipped > 0 ? `, ${skipped} skipped` : ''}`;
}

function applySummary(outcomes: PassOutcome[]): string {
  const results = outcomes.flatMap((o) => o.results);
  if (results.length === 0) return '';
  const line = outcomeCounts(outcomes);
  return results.some((r) => r.outcome === 'failed')
    ? `\nApply finished with errors: ${line}.\n`
    : `\nApply complete! Resources: ${line}.\n`;
}

/**
 * A saved plan's sources, each matched with the configured source of the same name and organization: a plan made for
 * another source or organization is refused, as is one that `--source` does not select.
 */
async function readSavedPlan(file: string, config: Config, args: CliArgs): Promise<Array<[SourceConfig, SavedSource]>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the saved plan ${file}: ${errorMessage(error)}`);
  }
  let plan;
  try {
    plan = parseSavedPlan(text, file);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
  const configured = config.sources.map((s) => s.name).join(', ');
  const matched: Array<[SourceConfig, SavedSource]> = [];
  for (const saved of plan.sources) {
    if (args.source !== null && saved.name !== args.source) continue;
    const source = config.sources.find((s) => s.name === saved.name);
    if (source === undefined) {
      throw new UsageError(`the saved plan ${file} is for source "${saved.name}", which is not configured here (sources: ${configured}); refusing to apply it`);
    }
    if (source.organization !== saved.organization) {
      throw new UsageError(
        `the saved plan ${file} is for organization "${saved.organization}", but source "${source.name}" syncs organization "${source.organization}"; refusing to apply it`,
      );
    }
    matched.push([source, saved]);
  }
  if (matched.length === 0) throw new UsageError(`the saved plan ${file} has no plan for source "${args.source ?? ''}"`);
  return matched;
}

/**
 * The first SIGINT or SIGTERM stops new changes (`stop`); the changes under way get `shutdown-timeout` seconds to
 * finish before they are abandoned (`abort`); a second signal exits at once.
 */
function interruption(config: Config, io: CliIo) {
  const stop = new AbortController();
  const abort = new AbortController();
  const state = { stop: stop.signal, abort: abort.signal, received: null as StopSignal | null, remove: () => {} };
  state.remove = onStopSignal((signal) => {
    state.received = signal;
    const grace = config.shutdownTimeoutSeconds;
    io.logger.warn({ signal, graceSeconds: grace }, 'signal received: no new changes; finishing those under way (send it again to exit at once)');
    stop.abort(new Error(`stopped by ${signal}`));
    setTimeout(() => abort.abort(new Error(`stopped by ${signal}; the changes under way were abandoned after ${grace} s`)), grace * 1000).unref();
  });
  return state;
}

/** Aborts when the pass of one source exceeds `--timeout`, or when a stop's grace time is over. */
function passSignal(source: string, timeoutSeconds: number, abort: AbortSignal): AbortSignal {
  const timeout = new AbortController();
  setTimeout(() => timeout.abort(new Error(`the pass of source "${source}" timed out after ${timeoutSeconds} s (--timeout)`)), timeoutSeconds * 1000).unref();
  return AbortSignal.any([timeout.signal, abort]);
}
