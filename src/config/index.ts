export type { ApiConfig, Config, GitSourceConfig, SourceConfig } from './types.js';
export { loadConfig, parseConfig, type LoadConfigOptions } from './load.js';
export { configFromFlags, type ConfigFlags } from './flags.js';
export { resolveToken } from './token.js';
export { ENV_OVERRIDES, isHostPort } from './env.js';
