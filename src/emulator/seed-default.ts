/** The seed used when none is given. */
import type { Seed } from './types.js';

export function defaultSeed(): Seed {
  return {
    organizations: [
      {
        name: 'example-org',
        maxAgentPools: 1,
        workspaces: [
          { id: 'ws-ExampleApp0000001', name: 'app', project: 'prj-ExampleDefault01' },
          { id: 'ws-ExampleOps0000001', name: 'ops', project: 'prj-ExamplePlatform1' },
        ],
        projects: [
          { id: 'prj-ExampleDefault01', name: 'Default Project' },
          { id: 'prj-ExamplePlatform1', name: 'platform' },
        ],
        policySets: ['polset-ExampleSet000001'],
        agentPools: [],
      },
    ],
  };
}
