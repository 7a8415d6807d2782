/**
 * The emulator's seed: YAML with kebab-case keys, checked against `schemas/emulator-seed.schema.json`,
 * read into a `Seed`. Every problem names the file, line and key path.
 */
import type { SourceProblem } from '../errors.js';
import { checkYaml, invalidFile, keyLabel, parseYaml, schemaIssues, type YamlDocument } from '../yaml/index.js';
import type { Behaviour, FaultSpec, RateLimitWindow, Seed, SeedAgent, SeedAgentPool, SeedOrganization, SeedRun, SeedRunOutcome } from './types.js';

/** The seed file as written, once it matches its schema. */
interface RawSeed {
  token?: string;
  'rate-limit'?: number;
  'run-list-rate-limit'?: number;
  'rate-limit-window'?: RateLimitWindow;
  'rate-limit-reset'?: 'real' | 'zero';
  'native-kind'?: 'native' | 'sentinel';
  organizations?: RawOrganization[];
  faults?: FaultSpec[];
  behaviour?: RawBehaviour;
}

/** The behaviour switches as the seed and the control endpoint spell them. */
export interface RawBehaviour {
  'pool-patch-resets-scope'?: boolean;
  'reject-enforce-with-level'?: boolean;
  'legacy-enforce'?: boolean;
  'native-kind'?: 'native' | 'sentinel';
  'list-omits-policy-sets'?: boolean;
  'show-omits-policy-sets'?: boolean;
  'ingestion-ms'?: number;
  'run-lists-ignore-include'?: boolean;
}

const BEHAVIOUR_KEYS = {
  'pool-patch-resets-scope': 'poolPatchResetsScope',
  'reject-enforce-with-level': 'rejectEnforceWithLevel',
  'legacy-enforce': 'legacyEnforce',
  'native-kind': 'nativeKind',
  'list-omits-policy-sets': 'listOmitsPolicySets',
  'show-omits-policy-sets': 'showOmitsPolicySets',
  'ingestion-ms': 'ingestionMs',
  'run-lists-ignore-include': 'runListsIgnoreInclude',
} as const satisfies Record<keyof RawBehaviour, keyof Behaviour>;

interface RawOrganization {
  name: string;
  'max-agent-pools'?: number;
  workspaces?: { id: string; name: string; project?: string }[];
  projects?: { id: string; name: string }[];
  'policy-sets'?: Array<string | RawPolicySet>;
  entitlements?: { 'policy-set-limit'?: number | null; 'policy-limit'?: number | null; 'versioned-policy-set-limit'?: number | null };
  'agent-pools'?: RawPool[];
  runs?: RawRun[];
}

interface RawRun {
  id?: string;
  workspace: string;
  'created-at': string;
  status?: string;
  evaluation?: SeedRun['evaluation'];
  kind?: 'native' | 'opa';
  outcomes?: SeedRunOutcome[];
  check?: SeedRun['check'];
  'check-detail'?: boolean;
  stage?: SeedRun['stage'];
  'plan-only'?: boolean;
  'is-destroy'?: boolean;
  'refresh-only'?: boolean;
  source?: string;
  'trigger-reason'?: string;
}

interface RawPolicySet {
  id: string;
  name?: string;
  kind?: 'native' | 'opa' | 'tfpolicy';
  description?: string | null;
  global?: boolean;
  workspaces?: string[];
  projects?: string[];
  'agent-enabled'?: boolean;
}

interface RawPool {
  name: string;
  'organization-scoped'?: boolean;
  'allowed-workspaces'?: string[];
  workspaces?: string[];
  agents?: { name?: string; status: SeedAgent['status']; 'ip-address'?: string | null; 'last-ping-at'?: string | null; 'created-at'?: string }[];
}

export function parseSeed(yamlText: string, file: string): Seed {
  const parsed = parseYaml(yamlText, file);
  if ('problems' in parsed) throw invalidFile('emulator seed', file, parsed.problems);
  const value = parsed.doc.value ?? {};
  const problems = [...checkYaml('emulator-seed', parsed.doc, { value }), ...crossProblems(parsed.doc, value)];
  if (problems.length > 0) throw invalidFile('emulator seed', file, problems);
  return toSeed(value as RawSeed);
}

/** The faults of a control request body, checked against the seed schema's `faults`; a list of messages, empty when valid. */
export function faultProblems(faults: unknown): string[] {
  return schemaIssues('emulator-seed', { faults }).map((issue) => issue.message);
}

/** The behaviour switches of a control request body, checked against the seed schema's `behaviour`; messages, empty when valid. */
export function behaviourProblems(behaviour: unknown): string[] {
  return schemaIssues('emulator-seed', { behaviour }).map((issue) => issue.message);
}

export function toBehaviour(raw: RawBehaviour): Partial<Behaviour> {
  const behaviour: Partial<Behaviour> = {};
  for (const [key, name] of Object.entries(BEHAVIOUR_KEYS) as Array<[keyof RawBehaviour, keyof Behaviour]>) {
    const value = raw[key];
    if (value !== undefined) Object.assign(behaviour, { [name]: value });
  }
  return behaviour;
}

/** The switches in the seed's spelling. */
export function fromBehaviour(behaviour: Behaviour): Required<RawBehaviour> {
  return {
    'pool-patch-resets-scope': behaviour.poolPatchResetsScope,
    'reject-enforce-with-level': behaviour.rejectEnforceWithLevel,
    'legacy-enforce': behaviour.legacyEnforce,
    'native-kind': behaviour.nativeKind,
    'list-omits-policy-sets': behaviour.listOmitsPolicySets,
    'show-omits-policy-sets': behaviour.showOmitsPolicySets,
    'ingestion-ms': behaviour.ingestionMs,
    'run-lists-ignore-include': behaviour.runListsIgnoreInclude,
  };
}

export function toFault(raw: FaultSpec): FaultSpec {
  return raw.method === undefined ? { ...raw } : { ...raw, method: raw.method.toUpperCase() };
}

/**
 * What the schema cannot say: organization names are unique, a pool allows only its organization's workspaces, and a
 * policy set's id and name are once per organization and its scope the organization's.
 */
function crossProblems(doc: YamlDocument, value: unknown): SourceProblem[] {
  const problems: SourceProblem[] = [];
  const firstByName = new Map<string, number>();
  listAt(value, 'organizations').forEach((org, i) => {
    if (typeof org.name === 'string') {
      const first = firstByName.get(org.name);
      const path = ['organizations', i, 'name'];
      if (first === undefined) firstByName.set(org.name, i);
      else problems.push(doc.problem(path, `${keyLabel(path)} "${org.name}" is already used by ${keyLabel(['organizations', first])}`));
    }
    const workspaceIds = new Set(listAt(org, 'workspaces').map((ws) => ws.id));
    problems.push(...setProblems(doc, org, i, workspaceIds));
    listAt(org, 'runs').forEach((run, j) => {
      if (typeof run.workspace !== 'string' || workspaceIds.has(run.workspace)) return;
      const path = ['organizations', i, 'runs', j, 'workspace'];
      problems.push(doc.problem(path, `${keyLabel(path)} "${run.workspace}" is not a workspace of organization "${String(org.name)}"`));
    });
    listAt(org, 'agent-pools').forEach((pool, j) => {
      const allowed: unknown[] = Array.isArray(pool['allowed-workspaces']) ? pool['allowed-workspaces'] : [];
      allowed.forEach((id, k) => {
        if (typeof id !== 'string' || workspaceIds.has(id)) return;
        const path = ['organizations', i, 'agent-pools', j, 'allowed-workspaces', k];
        problems.push(doc.problem(path, `${keyLabel(path)} "${id}" is not a workspace of organization "${String(org.name)}"`));
      });
    });
  });
  return problems;
}

/** A policy set's id and name once per organization, and its scope among the organization's workspaces and projects. */
function setProblems(doc: YamlDocument, org: Record<string, unknown>, i: number, workspaceIds: Set<unknown>): SourceProblem[] {
  const problems: SourceProblem[] = [];
  const projectIds = new Set(listAt(org, 'projects').map((project) => project.id));
  const seen = new Set<unknown>();
  const sets: unknown[] = Array.isArray(org['policy-sets']) ? org['policy-sets'] : [];
  sets.forEach((entry, j) => {
    const set = typeof entry === 'string' ? { id: entry } : (entry as Record<string, unknown>);
    for (const key of ['id', 'name'] as const) {
      const value = key === 'name' ? (set.name ?? set.id) : set.id;
      const path = ['organizations', i, 'policy-sets', j, ...(typeof entry === 'string' ? [] : [key])];
      if (seen.has(`${key}:${String(value)}`)) problems.push(doc.problem(path, `${keyLabel(path)}: the policy set ${key} "${String(value)}" is used twice`));
      seen.add(`${key}:${String(value)}`);
    }
    for (const [key, known] of [['workspaces', workspaceIds], ['projects', projectIds]] as const) {
      const ids: unknown[] = Array.isArray(set[key]) ? (set[key] as unknown[]) : [];
      ids.forEach((id, k) => {
        if (known.has(id)) return;
        const path = ['organizations', i, 'policy-sets', j, key, k];
        problems.push(doc.problem(path, `${keyLabel(path)} "${String(id)}" is not one of the ${key} of organization "${String(org.name)}"`));
      });
    }
  });
  return problems;
}

/** The mappings in the list at `key` of `value`; anything else (which the schema reports) is skipped. */
function listAt(value: unknown, key: string): Record<string, unknown>[] {
  const list = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : {}));
}

function toSeed(raw: RawSeed): Seed {
  const seed: Seed = { organizations: (raw.organizations ?? []).map(toOrganization) };
  if (raw.token !== undefined) seed.token = raw.token;
  if (raw['rate-limit'] !== undefined) seed.rateLimit = raw['rate-limit'];
  if (raw['run-list-rate-limit'] !== undefined) seed.runListRateLimit = raw['run-list-rate-limit'];
  if (raw['rate-limit-window'] !== undefined) seed.rateLimitWindow = raw['rate-limit-window'];
  if (raw.faults !== undefined) seed.faults = raw.faults.map(toFault);
  if (raw['rate-limit-reset'] !== undefined) seed.rateLimitReset = raw['rate-limit-reset'];
  if (raw.behaviour !== undefined) seed.behaviour = toBehaviour(raw.behaviour);
  if (raw['native-kind'] !== undefined) seed.behaviour = { ...seed.behaviour, nativeKind: raw['native-kind'] };
  return seed;
}

function toOrganization(raw: RawOrganization): SeedOrganization {
  const org: SeedOrganization = { name: raw.name };
  if (raw['max-agent-pools'] !== undefined) org.maxAgentPools = raw['max-agent-pools'];
  org.workspaces = (raw.workspaces ?? []).map((ws) => ({ id: ws.id, name: ws.name, ...(ws.project === undefined ? {} : { project: ws.project }) }));
  if (raw.projects !== undefined) org.projects = raw.projects.map((project) => ({ id: project.id, name: project.name }));
  org.policySets = (raw['policy-sets'] ?? []).map((set) => {
    if (typeof set === 'string') return set;
    const { 'agent-enabled': agentEnabled, ...rest } = set;
    return { ...rest, ...(agentEnabled === undefined ? {} : { agentEnabled }) };
  });
  const limits = raw.entitlements;
  if (limits !== undefined) {
    org.entitlements = {
      policySetLimit: limits['policy-set-limit'] ?? null,
      policyLimit: limits['policy-limit'] ?? null,
      versionedPolicySetLimit: limits['versioned-policy-set-limit'] ?? null,
    };
  }
  org.agentPools = (raw['agent-pools'] ?? []).map(toPool);
  if (raw.runs !== undefined) org.runs = raw.runs.map(toRun);
  return org;
}

function toRun(raw: RawRun): SeedRun {
  const {
    'created-at': createdAt, outcomes, 'check-detail': checkDetail, 'plan-only': planOnly, 'is-destroy': isDestroy, 'refresh-only': refreshOnly,
    'trigger-reason': triggerReason, ...rest
  } = raw;
  const renamed = { checkDetail, planOnly, isDestroy, refreshOnly, triggerReason };
  return {
    ...rest, ...Object.fromEntries(Object.entries(renamed).filter(([, value]) => value !== undefined)), createdAt: new Date(createdAt).toISOString(),
    ...(outcomes === undefined ? {} : { outcomes: outcomes.map((outcome) => ({ ...outcome })) }),
  };
}

function toPool(raw: RawPool): SeedAgentPool {
  const pool: SeedAgentPool = { name: raw.name };
  if (raw['organization-scoped'] !== undefined) pool.organizationScoped = raw['organization-scoped'];
  pool.allowedWorkspaces = [...(raw['allowed-workspaces'] ?? [])];
  if (raw.workspaces !== undefined) pool.workspaces = [...raw.workspaces];
  pool.agents = (raw.agents ?? []).map((agent) => {
    const seedAgent: SeedAgent = { status: agent.status };
    if (agent.name !== undefined) seedAgent.name = agent.name;
    if (agent['ip-address'] !== undefined) seedAgent.ipAddress = agent['ip-address'];
    const lastPing = agent['last-ping-at'];
    if (lastPing !== undefined) seedAgent.lastPingAt = lastPing === null ? null : new Date(lastPing).toISOString();
    if (agent['created-at'] !== undefined) seedAgent.createdAt = new Date(agent['created-at']).toISOString();
    return seedAgent;
  });
  return pool;
}
