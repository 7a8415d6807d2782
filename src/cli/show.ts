import { renderMarkdown, renderText, shouldColor } from '../output/index.js';
import { rolloutFromJson, type JsonRollout } from '../output/json.js';
import type { SavedSource } from '../plan/saved.js';
import type { SourcePlan } from '../plan/types.js';
import type { CliArgs } from './args.js';
import { readSavedPlanFile } from './saved-plan-file.js';

/**
 * `--show FILE`: a saved plan as text or Markdown (or its JSON as saved), with no API call and no declared repo:
 * what `--reconcile --plan FILE` would apply, for a reviewer.
 */
export async function runShow(args: CliArgs, stdout: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Promise<number> {
  const { text, plan: saved } = await readSavedPlanFile(args.show ?? '');
  if (args.output === 'json') {
    stdout.write(text);
    return 0;
  }
  const plans = saved.sources.map(sourcePlan);
  stdout.write(args.output === 'markdown' ? renderMarkdown(plans) : renderText(plans, { color: shouldColor(stdout, env) }));
  return 0;
}

/** A saved source as the renderers read a fresh one: its saved changes are the changes of a plan, as they are. */
function sourcePlan(saved: SavedSource): SourcePlan {
  const header = { name: saved.name, organization: saved.organization, revision: saved.revision };
  if (saved.changes === null) return { ...header, plan: null, unreadable: 'declared', errors: [...saved.errors] };
  // The rollouts were checked against the plan schema's `rollout` as the file was read.
  const rollouts = ((saved.rollouts ?? []) as JsonRollout[]).map(rolloutFromJson);
  return { ...header, plan: { changes: saved.changes, warnings: [...saved.warnings], errors: [...saved.errors], ...(rollouts.length === 0 ? {} : { rollouts }) } };
}
