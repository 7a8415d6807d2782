import type { ControlTarget } from '../server/control.js';
import type { SourceRunner } from './source-runner.js';

/** The control endpoints acting on the daemon's source runners. */
export function controlTarget(runners: ReadonlyMap<string, SourceRunner>): ControlTarget {
  const runner = (name: string): SourceRunner => {
    const found = runners.get(name);
    if (found === undefined) throw new Error(`no source named ${name}`);
    return found;
  };
  return {
    names: () => [...runners.keys()],
    has: (name) => runners.has(name),
    suspended: (name) => runner(name).suspended,
    async sync(name, { wait, overrideWindow }) {
      const ended = runner(name).sync({ overrideWindow });
      if (!wait) return null;
      return (await ended) ?? 'stopped';
    },
    suspend: (name) => runner(name).suspend(),
    resume: (name) => runner(name).resume(),
  };
}
