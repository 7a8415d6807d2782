/** Readers of the seed's parts; each reports problems by path and returns what it could read. */
import type { AgentStatus } from '../model.js';
import type { FaultKind, FaultSpec, SeedAgent, SeedAgentPool, SeedOrganization } from './types.js';
import { NAME_PATTERN } from './validate.js';

export type Path = (string | number)[];

export interface Checker {
  problem(path: Path, message: string): void;
}

type Fields = Record<string, unknown>;

const STATUSES: AgentStatus[] = ['idle', 'busy', 'exited', 'errored', 'unknown'];
const FAULT_KINDS: FaultKind[] = ['status', 'latency', 'drop', 'lose-response'];

export function readList<T>(value: unknown, path: Path, check: Checker, read: (item: unknown, path: Path, check: Checker) => T | null): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    check.problem(path, `${String(path[path.length - 1])} must be a list`);
    return [];
  }
  const out: T[] = [];
  value.forEach((item, i) => {
    const parsed = read(item, [...path, i], check);
    if (parsed !== null) out.push(parsed);
  });
  return out;
}

/** The item as a mapping with only `allowed` keys, or null after reporting. */
function fields(item: unknown, path: Path, check: Checker, allowed: string[]): Fields | null {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    check.problem(path, 'expected a mapping');
    return null;
  }
  for (const key of Object.keys(item)) if (!allowed.includes(key)) check.problem([...path, key], `unknown key "${key}"`);
  return item as Fields;
}

function str(f: Fields, key: string, path: Path, check: Checker, required: boolean): string | undefined {
  const value = f[key];
  if (value === undefined || value === null) {
    if (required) check.problem(path, `${key} is required`);
    return undefined;
  }
  if (typeof value === 'string' && value !== '') return value;
  check.problem([...path, key], `${key} must be a non-empty string`);
  return undefined;
}

function wholeNumber(f: Fields, key: string, path: Path, check: Checker): number | undefined {
  const value = f[key];
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  check.problem([...path, key], `${key} must be a whole number, 0 or more`);
  return undefined;
}

export function readOrganization(item: unknown, path: Path, check: Checker): SeedOrganization | null {
  const f = fields(item, path, check, ['name', 'max-agent-pools', 'workspaces', 'policy-sets', 'agent-pools']);
  if (f === null) return null;
  const name = str(f, 'name', path, check, true) ?? '';
  const org: SeedOrganization = { name };
  const max = wholeNumber(f, 'max-agent-pools', path, check);
  if (max !== undefined) org.maxAgentPools = max;
  org.workspaces = readList(f.workspaces, [...path, 'workspaces'], check, (ws, wsPath) => {
    const w = fields(ws, wsPath, check, ['id', 'name']);
    if (w === null) return null;
    return { id: str(w, 'id', wsPath, check, true) ?? '', name: str(w, 'name', wsPath, check, true) ?? '' };
  });
  org.policySets = readList(f['policy-sets'], [...path, 'policy-sets'], check, (id, idPath) => {
    if (typeof id === 'string' && id.startsWith('polset-')) return id;
    check.problem(idPath, 'a policy set is a polset- id');
    return null;
  });
  const workspaceIds = new Set(org.workspaces.map((ws) => ws.id));
  org.agentPools = readList(f['agent-pools'], [...path, 'agent-pools'], check, (pool, poolPath) => readPool(pool, poolPath, check, workspaceIds));
  return org;
}

function readPool(item: unknown, path: Path, check: Checker, workspaceIds: Set<string>): SeedAgentPool | null {
  const f = fields(item, path, check, ['name', 'organization-scoped', 'allowed-workspaces', 'agents']);
  if (f === null) return null;
  const name = str(f, 'name', path, check, true) ?? '';
  if (name !== '' && !NAME_PATTERN.test(name)) check.problem([...path, 'name'], 'a pool name is letters, digits, - and _');
  const pool: SeedAgentPool = { name };
  const scoped = f['organization-scoped'];
  if (typeof scoped === 'boolean') pool.organizationScoped = scoped;
  else if (scoped !== undefined) check.problem([...path, 'organization-scoped'], 'organization-scoped must be true or false');
  pool.allowedWorkspaces = readList(f['allowed-workspaces'], [...path, 'allowed-workspaces'], check, (id, idPath) => {
    if (typeof id === 'string' && workspaceIds.has(id)) return id;
    check.problem(idPath, `allowed workspace ${String(id)} is not a workspace of this organization`);
    return null;
  });
  pool.agents = readList(f.agents, [...path, 'agents'], check, readAgent);
  return pool;
}

function readAgent(item: unknown, path: Path, check: Checker): SeedAgent | null {
  const f = fields(item, path, check, ['name', 'status', 'ip-address', 'last-ping-at']);
  if (f === null) return null;
  const status = f.status as AgentStatus;
  if (!STATUSES.includes(status)) {
    check.problem([...path, 'status'], `status must be one of ${STATUSES.join(', ')}`);
    return null;
  }
  const agent: SeedAgent = { status };
  const name = str(f, 'name', path, check, false);
  if (name !== undefined) agent.name = name;
  const ip = str(f, 'ip-address', path, check, false);
  if (ip !== undefined) agent.ipAddress = ip;
  const ping = f['last-ping-at'];
  if (ping !== undefined) {
    const time = ping instanceof Date ? ping.getTime() : typeof ping === 'string' ? Date.parse(ping) : NaN;
    if (Number.isNaN(time)) check.problem([...path, 'last-ping-at'], 'last-ping-at must be an ISO 8601 date-time');
    else agent.lastPingAt = new Date(time).toISOString();
  }
  return agent;
}

export function readFaults(value: unknown, path: Path, check: Checker): FaultSpec[] {
  return readList(value, path, check, readFault);
}

export function readFault(item: unknown, path: Path, check: Checker): FaultSpec | null {
  const f = fields(item, path, check, ['kind', 'method', 'path', 'status', 'latency-ms', 'count']);
  if (f === null) return null;
  const kind = f.kind as FaultKind;
  if (!FAULT_KINDS.includes(kind)) {
    check.problem([...path, 'kind'], `kind must be one of ${FAULT_KINDS.join(', ')}`);
    return null;
  }
  const fault: FaultSpec = { kind };
  const method = str(f, 'method', path, check, false);
  if (method !== undefined) fault.method = method.toUpperCase();
  const pattern = str(f, 'path', path, check, false);
  if (pattern !== undefined) {
    try {
      new RegExp(pattern);
      fault.path = pattern;
    } catch {
      check.problem([...path, 'path'], 'path must be a valid regular expression');
    }
  }
  const status = wholeNumber(f, 'status', path, check);
  if (status !== undefined && (status < 100 || status > 599)) check.problem([...path, 'status'], 'status must be 100 to 599');
  else if (status !== undefined) fault.status = status;
  const latency = wholeNumber(f, 'latency-ms', path, check);
  if (latency !== undefined) fault['latency-ms'] = latency;
  const count = wholeNumber(f, 'count', path, check);
  if (count !== undefined) fault.count = count;
  return fault;
}
