import type { AgentStatus } from '../model.js';
import type { SourceProblem } from '../errors.js';
import type { YamlDocument } from '../yaml/index.js';
import type { AgentCleanup, DeclaredPool } from './types.js';
import { parseDuration } from './duration.js';
import { listLines, readSettingsFile } from './settings-file.js';
import { readTokens } from './pool-tokens.js';

/** A pool file read and validated on its own; cross-pool checks come later. */
export interface PoolFile {
  pool: DeclaredPool;
  /** For the lines of later problems; null when the YAML did not parse. */
  doc: YamlDocument | null;
  problems: SourceProblem[];
}

/** Reads `agent-pools/<name>.yaml`; every problem is returned, with its line. */
export function readPoolFile(name: string, file: string, text: string): PoolFile {
  const parsed = readSettingsFile(file, text, 'agent-pool');
  const raw = parsed.settings ?? {};
  const tokens = parsed.problems.length === 0 ? readTokens(raw.tokens) : null;
  const pool: DeclaredPool = {
    name,
    file,
    organizationScoped: typeof raw['organization-scoped'] === 'boolean' ? raw['organization-scoped'] : true,
    allowedWorkspaces: stringList(raw['allowed-workspaces']),
    ...managedList('allowedProjects', raw['allowed-projects']),
    ...managedList('excludedWorkspaces', raw['excluded-workspaces']),
    previousNames: stringList(raw['previous-names']) ?? [],
    agentCleanup: parsed.problems.length === 0 ? agentCleanup(raw['agent-cleanup']) : null,
    ...(tokens === null ? {} : { tokens }),
    lines: listLines(parsed.doc, ['allowed-workspaces', 'allowed-projects', 'excluded-workspaces']),
  };
  return { pool, doc: parsed.doc, problems: parsed.problems };
}

function agentCleanup(value: unknown): AgentCleanup | null {
  if (typeof value !== 'object' || value === null) return null;
  const { statuses, after } = value as { statuses: AgentStatus[]; after: string };
  const afterMs = parseDuration(after);
  return afterMs === null ? null : { statuses: [...statuses], after, afterMs };
}

function stringList(value: unknown): string[] | null {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : null;
}

/** The hosted service's other access lists: set only when the file names them (absent: not managed). */
function managedList<K extends 'allowedProjects' | 'excludedWorkspaces'>(key: K, value: unknown): Partial<Record<K, string[]>> {
  const list = stringList(value);
  return list === null ? {} : ({ [key]: list } as Partial<Record<K, string[]>>);
}
