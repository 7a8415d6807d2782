import path from 'node:path';
import { defaultStateDir } from './default-state-dir.js';
import { applyEnvOverrides } from './env.js';
import { withOwnSecrets } from './secrets.js';
import { API_DEFAULTS, DEFAULT_LISTEN, DEFAULT_SHUTDOWN_TIMEOUT_SECONDS, sourceDefaults } from './to-config.js';
import type { ApiConfig, Config, SourceConfig } from './types.js';
import { ValidationError } from '../errors.js';

export interface ConfigFlags {
  sourceDir: string;
  organization: string;
  /** --api-url; wins over API_BASE_URL. */
  apiUrl?: string | null;
  /** --source: the source's name, and so its ownership marker. @default "default" */
  name?: string | null;
}

/**
 * A config for use without a file (`--source-dir DIR --organization NAME`): one source named by `--source`, else
 * `default`, ownership marker, prune off. The name is never taken from the folder, because it is written into the
 * ownership marker: a checkout's folder name differs between CI systems and machines, and a changed name would
 * stop prune from recognising the policies the source wrote before.
 * URL: --api-url, else API_BASE_URL, else `embedded`. The state dir: `STATE_DIR`, else outside the declared repo
 * (`defaultStateDir`), which the working directory of a CI job usually is.
 */
export function configFromFlags(flags: ConfigFlags, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Config {
  const dir = path.resolve(cwd, flags.sourceDir);
  const name = flags.name ?? 'default';
  return configWithDefaults({ ...API_DEFAULTS }, [{ ...sourceDefaults(name, flags.organization), path: dir }], env, flags.apiUrl ?? null, cwd);
}

/**
 * A config of `api` and `sources` without a file: the daemon's settings at their defaults (the state dir outside the
 * working directory: `defaultStateDir`), then the environment's overrides; `apiUrl` (--api-url) wins over the URL of both.
 */
export function configWithDefaults(api: ApiConfig, sources: SourceConfig[], env: NodeJS.ProcessEnv, apiUrl: string | null, cwd: string): Config {
  const config: Config = {
    api,
    sources,
    listen: DEFAULT_LISTEN,
    webhookSecretEnv: 'WEBHOOK_SECRET',
    stateDir: defaultStateDir(env),
    shutdownTimeoutSeconds: DEFAULT_SHUTDOWN_TIMEOUT_SECONDS,
  };
  const overridden = applyEnvOverrides(config, env, cwd);
  if (overridden.problems.length > 0) throw new ValidationError('invalid environment', overridden.problems);
  const withUrl = apiUrl === null ? overridden.config : { ...overridden.config, api: { ...overridden.config.api, url: apiUrl } };
  return withOwnSecrets(withUrl);
}
