/**
 * What a saved plan records of the run that made it (`run`): the API, and each planned source's location and the
 * settings that decide what it may write. The record is a description, never a source of authority: applying the
 * plan takes the API and every setting from the applying side (flags, the environment, `--config`), and refuses,
 * before any request, a plan whose record differs from them in anything that could widen what is written.
 */
import path from 'node:path';
import type { Config, SourceConfig } from '../config/types.js';
import { UsageError } from '../errors.js';
import { savedUrl } from '../redact.js';
import type { SavedRun, SavedRunSource } from '../plan/saved.js';
import { readSavedPlanFile } from './saved-plan-file.js';

/** The flags of the run that decide authority beyond the config: `--prune` and `--force`. */
export interface RunFlags {
  prune: boolean;
  force: boolean;
}

/** The record of this run a saved plan keeps (`run`): the API URL and each planned source's location and settings. */
export function savedRun(config: Config, sources: readonly SourceConfig[], flags: RunFlags): SavedRun {
  return {
    api_url: savedUrl(config.api.url),
    ...(config.api.nativeKind === null ? {} : { native_kind: config.api.nativeKind }),
    legacy_enforce: config.api.legacyEnforce,
    sources: sources.map((source) => ({ ...authority(source, flags), path: source.path === null ? null : path.resolve(source.path) })),
  };
}

/** One source's settings that decide what the apply may write, as the saved plan records them. */
function authority(source: SourceConfig, flags: RunFlags): Omit<SavedRunSource, 'path'> {
  return {
    name: source.name,
    organization: source.organization,
    git: source.git === null ? null : { ...source.git, url: savedUrl(source.git.url) },
    prune: flags.prune || source.prune,
    ownership: source.ownership,
    max_deletes: source.maxDeletes,
    allow_empty: source.allowEmpty,
    adopt: source.adopt,
    max_agent_pools: source.maxAgentPools,
    strict_imports: source.strictImports === true,
    force: flags.force,
  };
}

/**
 * The settings compared, each with its name in messages (the flag or config key that sets it). The organization is
 * not among them: it is checked once, where each saved source is matched with the configured one (one-shot.ts
 * `savedSourcesOf`), against the plan's own source, whose changes are what would be applied.
 */
const COMPARED: ReadonlyArray<[keyof Omit<SavedRunSource, 'name' | 'path' | 'strict_imports' | 'organization'>, string]> = [
  ['git', 'git (url, ref, path)'],
  ['ownership', 'ownership'],
  ['adopt', 'adopt (--adopt)'],
  ['prune', 'prune (--prune)'],
  ['max_deletes', 'max-deletes'],
  ['force', 'force (--force)'],
  ['allow_empty', 'allow-empty (--allow-empty)'],
  ['max_agent_pools', 'max-agent-pools'],
];

/**
 * Refuses a saved plan whose record of its run is not this run's: another API (its token goes only where this run
 * says), or a source whose authority differs (git location, ownership, adopt, prune, max-deletes, force,
 * allow-empty, max-agent-pools). Every difference is named with both values. A local folder's path is not
 * compared: checkouts differ between jobs, and the folder read is always this run's.
 */
export function checkSavedRun(run: SavedRun | undefined, file: string, config: Config, sources: readonly SourceConfig[], flags: RunFlags): void {
  if (run === undefined) {
    throw new UsageError(`the saved plan ${file} does not record the API and settings it was made with (an older version saved it); make a new plan with --dry-run --out FILE`);
  }
  const problems: string[] = [];
  const planned = apiOrigin(run.api_url);
  const here = apiOrigin(config.api.url);
  if (planned !== here) {
    problems.push(`it was made against the API ${planned}, but this run's API is ${here} (--api-url, API_BASE_URL or api.url): the token goes only to the API this run names`);
  }
  for (const source of sources) {
    const recorded = run.sources.find((s) => s.name === source.name);
    if (recorded === undefined) {
      problems.push(`it does not record the settings of source "${source.name}"`);
      continue;
    }
    const now = authority(source, flags);
    const saved = { ...recorded, force: recorded.force ?? false };
    for (const [key, label] of COMPARED) {
      const a = JSON.stringify(saved[key] ?? null);
      const b = JSON.stringify(now[key] ?? null);
      if (a !== b) problems.push(`source "${source.name}": ${label} is ${a} in the plan but ${b} in this run`);
    }
  }
  if (problems.length > 0) {
    throw new UsageError(
      `the saved plan ${file} was made with other settings than this run's; refusing to apply it (pass the dry run's flags or --config again):\n${problems.map((p) => `  ${p}`).join('\n')}`,
    );
  }
}

/** An API URL as compared and shown: scheme, host, port and base path, without credentials, query or trailing slash. */
export function apiOrigin(url: string): string {
  if (url === 'embedded') return url;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname.replace(/\/+$/, '')}`;
  } catch {
    return JSON.stringify(url);
  }
}

/**
 * The refusal of `--reconcile --plan FILE` given neither `--config` nor `--source-dir`: the file records the API and
 * sources it was made with, and this run must name them itself. Nothing is sent.
 */
export async function withoutApplyingSide(file: string, apiUrl: string | null): Promise<UsageError> {
  const { plan } = await readSavedPlanFile(file);
  const made = plan.run === undefined ? 'an API it does not record' : `the API ${apiOrigin(plan.run.api_url)}`;
  const here = apiUrl === null ? 'this run names no API (--api-url, API_BASE_URL or --config)' : `this run names the API ${apiOrigin(apiUrl)} but no source`;
  return new UsageError(
    `the saved plan ${file} was made against ${made}, and ${here}: applying a saved plan takes the API and every setting from this run, never from the file. ` +
      'Pass the dry run\'s flags again (--source-dir DIR --organization NAME --source NAME --api-url URL, and --prune, --adopt, --allow-empty or --force as given then) or --config FILE',
  );
}
