import { readFile } from 'node:fs/promises';
import { errorMessage, UsageError } from '../errors.js';
import { renderMarkdown, renderText, shouldColor } from '../output/index.js';
import type { SavedSource } from '../plan/saved.js';
import { parseSavedPlan } from '../plan/saved-read.js';
import type { SourcePlan } from '../plan/types.js';
import type { CliArgs } from './args.js';

/**
 * `--show FILE`: a saved plan as text or Markdown (or its JSON as saved), with no API call and no declared repo:
 * what `--reconcile --plan FILE` would apply, for a reviewer.
 */
export async function runShow(args: CliArgs, stdout: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Promise<number> {
  const file = args.show ?? '';
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the saved plan ${file}: ${errorMessage(error)}`);
  }
  let saved;
  try {
    saved = parseSavedPlan(text, file);
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
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
  return { ...header, plan: { changes: saved.changes, warnings: [...saved.warnings], errors: [...saved.errors] } };
}
