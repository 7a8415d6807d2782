import type { Config } from '../config/types.js';
import { defaultSeed, startEmulator, type RunningEmulator, type Seed } from '../emulator/index.js';
import type { Logger } from '../logger.js';

/**
 * The emulator's default seed plus every source's organization, so `api.url: embedded` works for any
 * config; with `api.legacy-enforce` it acts as the old server that setting is for.
 */
export function embeddedSeed(config: Config): Seed {
  const seed: Seed = { ...defaultSeed(), behaviour: { legacyEnforce: config.api.legacyEnforce, nativeKind: config.api.nativeKind ?? 'native' } };
  for (const source of config.sources) {
    const existing = seed.organizations.find((o) => o.name === source.organization);
    if (existing === undefined) seed.organizations.push({ name: source.organization, maxAgentPools: source.maxAgentPools });
    else existing.maxAgentPools = Math.max(existing.maxAgentPools ?? 1, source.maxAgentPools);
  }
  return seed;
}

/** Requests the embedded emulator's log keeps. */
export const EMBEDDED_REQUEST_LOG_LIMIT = 1_000;

/**
 * Starts the emulator in-process on a loopback port, and says loudly that nothing real is changed. Its token is the
 * daemon's `API_TOKEN` when set (`npm start` with a token of one's own), else a random one.
 */
export async function startEmbeddedApi(config: Config, logger: Logger, env: NodeJS.ProcessEnv): Promise<RunningEmulator> {
  const token = env['API_TOKEN'];
  const emulator = await startEmulator({
    port: 0,
    host: '127.0.0.1',
    seed: { ...embeddedSeed(config), ...(token === undefined ? {} : { token }) },
    logger: logger.child({ component: 'emulator' }),
    // The daemon runs for days: its emulator keeps the last requests only.
    requestLogLimit: EMBEDDED_REQUEST_LOG_LIMIT,
  });
  logger.warn(
    { url: emulator.url, organizations: config.sources.map((s) => s.organization) },
    'api.url is "embedded": syncing against the IN-PROCESS EMULATOR; NOTHING REAL IS CHANGED and its state is lost on exit. Set api.url or API_BASE_URL to a real API.',
  );
  return emulator;
}
