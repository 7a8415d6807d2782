import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient, type ApiClientOptions } from '../../src/api/client.js';
import type { Seed } from '../../src/emulator/index.js';
import { TestEmulator } from './emulator.js';
import { captureLogs } from './logs.js';

export const TOKEN = 'tok-Zq9xSecretValue-31337';

export interface ApiFixture {
  emulator: TestEmulator;
  client: ApiClient;
  /** Every log line the client wrote, as JSON text. */
  logLines: string[];
  tempDir: string;
  close(): Promise<void>;
}

/** Organizations most tests use: `acme` has one pool with agents; `fresh` has none; `roomy` allows five pools. */
export function testSeed(overrides: Partial<Seed> = {}): Seed {
  return {
    token: TOKEN,
    rateLimit: 0,
    organizations: [
      {
        name: 'acme',
        workspaces: [{ id: 'ws-web', name: 'web' }, { id: 'ws-db', name: 'db' }],
        policySets: ['polset-base', 'polset-extra'],
        agentPools: [{
          name: 'pool-a',
          organizationScoped: false,
          allowedWorkspaces: ['ws-web'],
          agents: [
            { name: 'agent-idle', status: 'idle', ipAddress: '10.0.0.1', lastPingAt: '2026-01-01T10:00:00.000Z' },
            { name: 'agent-busy', status: 'busy', ipAddress: '10.0.0.2', lastPingAt: '2026-01-02T10:00:00.000Z' },
            { name: 'agent-gone', status: 'exited', ipAddress: '10.0.0.3', lastPingAt: '2026-01-03T10:00:00.000Z' },
          ],
        }],
      },
      { name: 'fresh', workspaces: [{ id: 'ws-one', name: 'one' }], policySets: ['polset-fresh'] },
      { name: 'roomy', maxAgentPools: 5, workspaces: [{ id: 'ws-r1', name: 'r1' }, { id: 'ws-r2', name: 'r2' }] },
    ],
    ...overrides,
  };
}

/** `emulatorNow`: the emulator's clock, e.g. the client's virtual clock, so that its timed faults run on the same time. */
export async function startApiFixture(seed: Seed = testSeed(), clientOptions: Partial<ApiClientOptions> = {}, emulatorNow?: () => number): Promise<ApiFixture> {
  const emulator = await TestEmulator.start(seed, emulatorNow === undefined ? {} : { now: emulatorNow });
  const { logger, lines } = captureLogs();
  const client = new ApiClient({ baseUrl: emulator.url, token: emulator.token, logger, ...clientOptions });
  const tempDir = await mkdtemp(join(tmpdir(), 'api-test-'));
  return {
    emulator,
    client,
    logLines: lines,
    tempDir,
    async close() {
      await client.close();
      await emulator.close();
      await rm(tempDir, { recursive: true, force: true });
    },
  };
}
