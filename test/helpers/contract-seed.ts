/** The world of the contract suites: what the vendor's client tests set up before their sequences. */
import type { Seed } from '../../src/emulator/index.js';

export const WS_APP = 'ws-aaaaaaaaaaaaaaaa';
export const WS_OPS = 'ws-bbbbbbbbbbbbbbbb';
export const NATIVE_CODE = 'import "tfplan/v2" as tfplan\r\n\r\nmain = rule { true } # bytes as sent ✓\n';

/** `org` with two workspaces and a restricted pool holding an idle and an exited agent; `listing` starts empty. */
export function contractSeed(token = 'contract-token'): Seed {
  return {
    token,
    rateLimit: 0,
    organizations: [
      {
        name: 'org',
        maxAgentPools: 3,
        workspaces: [{ id: WS_APP, name: 'app' }, { id: WS_OPS, name: 'ops' }],
        agentPools: [{
          name: 'build',
          organizationScoped: false,
          allowedWorkspaces: [WS_APP],
          agents: [
            { name: 'waiting', status: 'idle', lastPingAt: '2026-01-02T00:00:00.000Z' },
            { name: 'stopped', status: 'exited', lastPingAt: '2026-01-01T00:00:00.000Z' },
          ],
        }],
      },
      { name: 'listing' },
    ],
  };
}
