import { parseCron } from '../cron.js';
import { hostPortProblem } from '../host-port.js';
import { keyLabel, type KeyPath } from '../yaml/index.js';
import { leaderElectionProblems } from './leader-election-checks.js';
import type { ConfigCheckProblem } from './types.js';
import { errorMessage } from '../errors.js';

export type { ConfigCheckProblem } from './types.js';

interface RawSource {
  name?: unknown;
  path?: unknown;
  git?: unknown;
  schedule?: unknown;
}

/** Checks the schema cannot express: unique source names, one of path/git, cron syntax, port range. */
export function checkConfigRules(value: unknown): ConfigCheckProblem[] {
  if (typeof value !== 'object' || value === null) return [];
  const raw = value as { sources?: unknown; listen?: unknown };
  const problems: ConfigCheckProblem[] = [];
  if (typeof raw.listen === 'string') problems.push(...checkListen(raw.listen, ['listen']));
  problems.push(...leaderElectionProblems((value as Record<string, unknown>)['leader-election']));
  if (!Array.isArray(raw.sources)) return problems;
  const firstIndexByName = new Map<string, number>();
  raw.sources.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) return;
    const source = entry as RawSource;
    if (typeof source.name === 'string') {
      const first = firstIndexByName.get(source.name);
      const path = ['sources', index, 'name'];
      if (first === undefined) firstIndexByName.set(source.name, index);
      else problems.push({ path, message: `${keyLabel(path)} "${source.name}" is already used by ${keyLabel(['sources', first])}` });
    }
    const hasPath = source.path !== undefined;
    const hasGit = source.git !== undefined;
    if (hasPath === hasGit) {
      const message = hasPath ? 'has both "path" and "git"; set only one' : 'has neither "path" (a local folder) nor "git" (a repository); set one';
      problems.push({ path: ['sources', index], message: `${keyLabel(['sources', index])} ${message}` });
    }
    if (typeof source.schedule === 'string') problems.push(...checkCron(source.schedule, ['sources', index, 'schedule']));
  });
  return problems;
}

function checkCron(expression: string, path: KeyPath): ConfigCheckProblem[] {
  try {
    parseCron(expression);
    return [];
  } catch (error) {
    return [{ path, message: `${keyLabel(path)} ${errorMessage(error)}` }];
  }
}

function checkListen(listen: string, path: KeyPath): ConfigCheckProblem[] {
  // The schema's pattern says host:port; only the port's range is left.
  if (hostPortProblem(listen) === 'port') return [{ path, message: `${keyLabel(path)} "${listen}" has a port above 65535` }];
  return [];
}
