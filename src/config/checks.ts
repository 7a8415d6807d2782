import { validateDetailed } from 'node-cron';

/** A problem found beyond what the JSON Schema can say. */
export interface ConfigCheckProblem {
  path: (string | number)[];
  message: string;
}

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
  if (!Array.isArray(raw.sources)) return problems;
  const firstIndexByName = new Map<string, number>();
  raw.sources.forEach((entry: unknown, index) => {
    if (typeof entry !== 'object' || entry === null) return;
    const source = entry as RawSource;
    if (typeof source.name === 'string') {
      const first = firstIndexByName.get(source.name);
      if (first === undefined) firstIndexByName.set(source.name, index);
      else problems.push({ path: ['sources', index, 'name'], message: `source name "${source.name}" is already used by sources[${first}]` });
    }
    const hasPath = source.path !== undefined;
    const hasGit = source.git !== undefined;
    if (hasPath === hasGit) {
      problems.push({ path: ['sources', index], message: hasPath ? 'set either "path" or "git", not both' : 'set one of "path" (a local folder) or "git" (a repository)' });
    }
    if (typeof source.schedule === 'string') problems.push(...checkCron(source.schedule, ['sources', index, 'schedule']));
  });
  return problems;
}

function checkCron(expression: string, path: (string | number)[]): ConfigCheckProblem[] {
  const result = validateDetailed(expression);
  if (result.valid) return [];
  const detail = result.errors.map((e) => e.message).join('; ');
  return [{ path, message: `"${expression}" is not a valid cron expression${detail === '' ? '' : ` (${detail})`}` }];
}

function checkListen(listen: string, path: (string | number)[]): ConfigCheckProblem[] {
  const match = /:(\d{1,5})$/.exec(listen);
  if (match !== null && Number(match[1]) > 65535) return [{ path, message: `port of "${listen}" must be between 0 and 65535` }];
  return [];
}
