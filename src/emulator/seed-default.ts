/** The seed used when none is given. */
import type { Seed } from './types.js';

export function defaultSeed(): Seed {
  return {
    organizations: [
      {
        name: 'example-org',
        maxAgentPools: 1,
        workspaces: [
          { id: 'ws-ExampleApp0000001', name: 'app' },
          { id: 'ws-ExampleOps0000001', name: 'ops' },
        ],
        policySets: ['polset-ExampleSet000001'],
        agentPools: [],
      },
    ],
  };
}
