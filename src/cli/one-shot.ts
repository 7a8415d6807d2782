import { writeFile } from 'node:fs/promises';
import { knownSecrets } from '../config/secrets.js';
import { createRedactor } from '../redact.js';
import { createApiClient } from '../api/from-config.js';
import { checkReachable } from '../api/reachable.js';
import { proxySettings } from '../http/proxy.js';
import type { Config, SourceConfig } from '../config/types.js';
import { errorMessage, UsageError } from '../errors.js';
import { openCodeCacheStore } from '../live/code-cache-file.js';
import { openEvidenceCacheStore } from '../live/evidence-cache-file.js';
import { inCi, logFormat } from '../logger.js';
import { applySummary, renderApplied, renderJson, renderMarkdown, renderSavedPlan, renderText, shouldColor, summarize } from '../output/index.js';
import type { SourcePlan } from '../plan/types.js';
import { ProgressReporter } from '../progress.js';
import type { SavedSource } from '../plan/saved.js';
import { runPass, type PassOutcome } from '../reconcile.js';
import { openSource } from '../source/index.js';
import { workTreeRevision } from '../source/work-tree-revision.js';
import { sharedSignal, SIGNAL_EXIT_CODE } from '../signals.js';
import type { CliArgs } from './args.js';
import { plansForReader } from './action-advice.js';
import { planFindings, writeFindings } from './error-lines.js';
import { interruption } from './interrupt.js';
import { markdownContext } from './markdown-context.js';
import { readSavedPlanFile } from './saved-plan-file.js';
import { checkSavedRun, savedRun } from './saved-run.js';
import { selectSources, sourceContext, type CliIo } from './sources.js';
import { oneShotNotifications } from './one-shot-notify.js';

export type { CliIo } from './sources.js';

/**
 * `--reconcile` and `--dry-run`: one pass per source, the plan to stdout, logs and progress to stderr.
 * `--reconcile` prints each source's plan (text or Markdown) before the first write for it, then the outcome of
 * the apply; its JSON is one document at the end, carrying the plan and each change's outcome.
 */
export async function runOnce(args: CliArgs, config: Config, io: CliIo): Promise<number> {
  // A saved plan is checked against this run's API and settings before the client exists: a refusal sends nothing.
  const saved = args.plan === null ? null : await readSavedPlan(args.plan, config, args);
  const api = await createApiClient({ config, env: io.env, logger: io.logger });
  // Checked once, before the first request of the first source whose repo is valid: a wrong folder is reported first.
  let reachable: Promise<void> | null = null;
  const beforeLive = () => (reachable ??= checkReachable(config.api.url, undefined, proxySettings(io.env)));
  const mode = args.mode === 'reconcile' ? 'apply' : 'plan';
  const printsEarly = mode === 'apply' && args.output !== 'json';
  const progress = new ProgressReporter({ logger: io.logger, terminal: io.terminal ?? null });
  // A person at a terminal or reading a CI log reads the plan, the progress line and the summary: the records that
  // repeat them (the plan made, each change applied, the request counts) are debug there, info in JSON logs.
  const forReader = (io.logFormat ?? logFormat(io.env['LOG_FORMAT'], io.terminal != null || inCi(io.env))) === 'pretty';
  // A text plan read as it is written (a terminal, a pager, a CI log) already shows each error: stderr repeats them
  // only for a text plan that goes to a file. Markdown and JSON on stdout are data (`plan=$(… --output markdown)`, a
  // file the Action posts): whatever stdout is, each error is also on stderr in plain words.
  const planOnScreen = args.output === 'text' && (io.stdoutShown ?? (io.stdout.isTTY === true && io.terminal != null));
  const outcomes: PassOutcome[] = [];
  const sources = saved === null ? selectSources(config, args) : saved.map(([source]) => source);
  // What the state dir's files must carry to be read back: a seal keyed from the API token (state-seal.ts).
  const seal = api.stateSeal();
  const caches = openCodeCacheStore({ stateDir: config.stateDir, logger: io.logger, seal, persist: !args.noCache });
  const runCaches = openEvidenceCacheStore({ stateDir: config.stateDir, logger: io.logger, seal, persist: !args.noCache });
  const dirs = new Map<string, string>();
  const interrupt = interruption(config.shutdownTimeoutSeconds, io.logger);
  const redact = io.redact ?? createRedactor(knownSecrets(config, io.env));
  const notify = oneShotNotifications(config, mode, io.env, io.logger, redact);
  try {
    for (const [index, source] of sources.entries()) {
      if (interrupt.early !== null) break;
      if (interrupt.stop.aborted) {
        io.stdout.write(`\nSource "${source.name}" was not run: ${errorMessage(interrupt.stop.reason)}.\n`);
        continue;
      }
      const signal = passSignal(source.name, args.timeoutSeconds, interrupt.abort);
      const checkout = await openSource(source, sourceContext(config, io)).checkout(signal);
      const { dir } = checkout;
      const revision = checkout.revision ?? (await workTreeRevision(dir, [config.stateDir]));
      dirs.set(source.name, dir);
      const codeCache = await caches.forOrganization(source.organization);
      notify.started(source, revision);
      let printed = false;
      const outcome = await runPass({
        source, dir, revision, api, logger: io.logger, env: io.env, mode, prune: args.prune || undefined, force: args.force,
        codeCache, runCache: await runCaches.forOrganization(source.organization), concurrency: config.api.concurrency, signal, stop: interrupt.stop, beforeLive,
        appliedLogLevel: forReader ? 'debug' : 'info',
        ...(saved === null ? {} : { saved: saved[index]![1] }),
        onProgress: (p) => {
          interrupt.phase(p.phase);
          progress.update(p);
        },
        onPlan: printsEarly
          ? (planned) => {
              if (interrupt.early !== null) return;
              progress.end();
              io.stdout.write(renderPlan(args, [planned], io));
              printed = true;
            }
          : undefined,
      });
      progress.end();
      if (interrupt.early !== null) break;
      outcomes.push(outcome);
      notify.finished(source, revision, outcome);
      if (printsEarly) io.stdout.write(printed ? renderApplied(outcome, args.output === 'markdown' ? 'markdown' : 'text') : renderPlan(args, [outcome.sourcePlan], io));
    }
  } catch (error) {
    throw interrupt.early ?? error;
  } finally {
    interrupt.remove();
    progress.end();
    io.logger[forReader ? 'debug' : 'info'](api.stats(), 'api requests');
    await api.close();
    await caches.save();
    await runCaches.save();
    await notify.close();
  }
  if (interrupt.early !== null) throw interrupt.early;
  if (args.out !== null) {
    await writeFile(args.out, redact(renderSavedPlan(outcomes.map((o) => o.sourcePlan), savedRun(config, sources, args))));
    io.logger.info({ file: args.out }, 'plan saved; apply it with --reconcile --plan');
  }
  if (!printsEarly) io.stdout.write(render(args, outcomes, io));
  else if (args.output === 'text') io.stdout.write(applySummary(outcomes));
  if (io.stderr !== undefined) writeFindings(planFindings(plansForReader(outcomes.map((o) => o.sourcePlan), io.env), dirs), io.stderr, io.env, { readable: !planOnScreen });
  const summary = summarize(outcomes.map((o) => o.sourcePlan));
  const changes = summary.create + summary.update + summary.replace + summary.delete;
  if (interrupt.received !== null) return SIGNAL_EXIT_CODE[interrupt.received];
  if (outcomes.some((o) => !o.ok)) return 1;
  return args.detailedExitcode && changes > 0 ? 2 : 0;
}

function renderPlan(args: CliArgs, planned: SourcePlan[], io: CliIo): string {
  const plans = plansForReader(planned, io.env);
  if (args.output === 'markdown') return renderMarkdown(plans, markdownContext(io.env));
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

/**
 * A saved plan's sources, each matched with the configured source of the same name and organization: a plan made for
 * another source or organization is refused, as is one that `--source` does not select. This is the one check of a
 * saved plan's organization; `checkSavedRun` compares the rest of what it records.
 */
async function readSavedPlan(file: string, config: Config, args: CliArgs): Promise<Array<[SourceConfig, SavedSource]>> {
  const { plan } = await readSavedPlanFile(file);
  const matched = savedSourcesOf(plan.sources, file, config, args);
  checkSavedRun(plan.run, file, config, matched.map(([source]) => source), args);
  return matched;
}

function savedSourcesOf(sources: readonly SavedSource[], file: string, config: Config, args: CliArgs): Array<[SourceConfig, SavedSource]> {
  const configured = config.sources.map((s) => s.name).join(', ');
  const matched: Array<[SourceConfig, SavedSource]> = [];
  for (const saved of sources) {
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

/** Aborts when the pass of one source exceeds `--timeout`, or when a stop's grace time is over. */
function passSignal(source: string, timeoutSeconds: number, abort: AbortSignal): AbortSignal {
  const timeout = new AbortController();
  setTimeout(() => timeout.abort(new Error(`the pass of source "${source}" timed out after ${timeoutSeconds} s (--timeout)`)), timeoutSeconds * 1000).unref();
  return sharedSignal(AbortSignal.any([timeout.signal, abort]));
}
