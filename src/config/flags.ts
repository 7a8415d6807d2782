import path from 'node:path';
import { applyEnvOverrides } from './env.js';
import { DEFAULT_LISTEN, DEFAULT_STATE_DIR, sourceDefaults } from './defaults.js';
import type { Config } from './types.js';
import { ValidationError } from '../errors.js';

export interface ConfigFlags {
  sourceDir: string;
  organization: string;
  /** --api-url; wins over API_BASE_URL. */
  apiUrl?: string | null;
}

/**
 * A config for use without a file (`--source-dir DIR --organization NAME`): one source named after the folder
 * (or `default` when the folder name is not a valid source name), ownership marker, prune off.
 * URL: --api-url, else API_BASE_URL, else `embedded`.
 */
export function configFromFlags(flags: ConfigFlags, env: NodeJS.ProcessEnv, cwd: string = process.cwd()): Config {
  const dir = path.resolve(cwd, flags.sourceDir);
  const base = path.basename(dir);
  const name = /^[A-Za-z0-9_-]+$/.test(base) ? base : 'default';
  const config: Config = {
    api: { url: 'embedded', tokenFile: null, rateLimit: 'auto', concurrency: 8 },
    sources: [{ ...sourceDefaults(name, flags.organization), path: dir }],
    listen: DEFAULT_LISTEN,
    webhookSecretEnv: 'WEBHOOK_SECRET',
    stateDir: path.resolve(cwd, DEFAULT_STATE_DIR),
  };
  const overridden = applyEnvOverrides(config, env, cwd);
  if (overridden.problems.length > 0) throw new ValidationError('invalid environment', overridden.problems);
  const apiUrl = flags.apiUrl ?? null;
  return apiUrl === null ? overridden.config : { ...overridden.config, api: { ...overridden.config.api, url: apiUrl } };
}
