/** The local emulator of the Policy and Agent Pool Management API. */
export { startEmulator, type EmulatorOptions, type RunningEmulator } from './server.js';
export { parseSeed } from './seed.js';
export { defaultSeed } from './seed-default.js';
export { defaultBehaviour } from './types.js';
export type { AgentStatus, Behaviour, FaultKind, RateLimitWindow, FaultSpec, Seed, SeedAgent, SeedAgentPool, SeedOrganization, SeedWorkspace } from './types.js';
export type { LoggedRequest } from './request-log.js';
