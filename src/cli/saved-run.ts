/**
 * Where a saved plan's sources live and which API it was made against, saved beside the plan (`run`), so that
 * `--reconcile --plan FILE` needs nothing more than the token: the config is rebuilt from the file.
 */
import path from 'node:path';
import { configWithDefaults } from '../config/flags.js';
import { DEFAULT_RETRY_BUDGET_SECONDS, sourceDefaults } from '../config/to-config.js';
import type { ApiConfig, Config, SourceConfig } from '../config/types.js';
import { errorMessage, UsageError } from '../errors.js';
import type { NativeKindName, Ownership } from '../model.js';
import { savedUrl } from '../redact.js';
import { readSavedPlanText } from './saved-plan-file.js';

/** One source as the run that saved the plan had it; a git URL never carries credentials. */
export interface SavedRunSource {
  name: string;
  organization: string;
  /** Absolute. */
  path: string | null;
  git: { url: string; ref: string; path: string } | null;
  prune: boolean;
  ownership: Ownership;
  max_deletes: number;
  allow_empty: boolean;
  adopt: boolean;
  max_agent_pools: number;
  strict_imports?: boolean;
}

export interface SavedRun {
  api_url: string;
  /** The API's word for the native kind when it was set, and the enforcement dialect; absent: learned from the API (and in plans saved before they were recorded). */
  native_kind?: NativeKindName;
  legacy_enforce?: boolean;
  sources: SavedRunSource[];
}

/** The saved plan's text with `run` added: the API URL and each planned source's location and settings. */
export function withSavedRun(planText: string, config: Config, sources: readonly SourceConfig[], prune: boolean): string {
  const document = JSON.parse(planText) as Record<string, unknown>;
  const run: SavedRun = {
    api_url: savedUrl(config.api.url),
    ...(config.api.nativeKind === null ? {} : { native_kind: config.api.nativeKind }),
    legacy_enforce: config.api.legacyEnforce,
    sources: sources.map((s) => ({
      name: s.name,
      organization: s.organization,
      path: s.path === null ? null : path.resolve(s.path),
      git: s.git === null ? null : { ...s.git, url: savedUrl(s.git.url) },
      prune: prune || s.prune,
      ownership: s.ownership,
      max_deletes: s.maxDeletes,
      allow_empty: s.allowEmpty,
      adopt: s.adopt,
      max_agent_pools: s.maxAgentPools,
      strict_imports: s.strictImports === true,
    })),
  };
  return `${JSON.stringify({ ...document, run }, null, 2)}\n`;
}

/**
 * The config of `--reconcile --plan FILE` given without `--config` or `--source-dir`: the sources and API URL the
 * plan was made with. `--api-url`, then API_BASE_URL, win over the saved URL; STATE_DIR and the other variables apply.
 */
export async function configFromSavedPlan(file: string, env: NodeJS.ProcessEnv, apiUrl: string | null, cwd = process.cwd()): Promise<Config> {
  const text = await readSavedPlanText(file);
  let run: SavedRun | undefined;
  try {
    run = (JSON.parse(text) as { run?: SavedRun }).run;
  } catch (error) {
    throw new UsageError(`cannot read the saved plan ${file}: ${errorMessage(error)}`);
  }
  if (run === undefined || typeof run.api_url !== 'string' || !Array.isArray(run.sources)) {
    throw new UsageError(`the saved plan ${file} does not say where its sources are (an older version saved it): pass --config FILE, or --source-dir DIR --organization NAME`);
  }
  const api: ApiConfig = {
    url: run.api_url, tokenFile: null, rateLimit: 'auto', concurrency: 8, legacyEnforce: run.legacy_enforce === true,
    retryBudgetSeconds: DEFAULT_RETRY_BUDGET_SECONDS, nativeKind: run.native_kind === 'sentinel' || run.native_kind === 'native' ? run.native_kind : null,
  };
  const sources: SourceConfig[] = run.sources.map((s) => ({
    ...sourceDefaults(s.name, s.organization),
    path: s.path,
    git: s.git,
    prune: s.prune,
    ownership: s.ownership,
    maxDeletes: s.max_deletes,
    allowEmpty: s.allow_empty,
    adopt: s.adopt,
    maxAgentPools: s.max_agent_pools,
    strictImports: s.strict_imports === true,
  }));
  return configWithDefaults(api, sources, env, apiUrl, cwd);
}
