/** Table fixtures for the pure planner: compact JSON of declared and live state, filled with defaults. */
import { createHash } from 'node:crypto';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { codeDigest } from '../../src/code-content.js';
import { lineCount } from './line-count.js';
import type { DeclaredPolicy, DeclaredPool, DeclaredState } from '../../src/declared/types.js';
import type { LiveAgent, LivePolicy, LivePool, LiveState } from '../../src/model.js';
import type { Change, Plan, PlanOptions } from '../../src/plan/types.js';
import { REPO_ROOT } from './repo-root.js';

export const FIXTURES = path.join(REPO_ROOT, 'test/fixtures');
export const NOW = Date.parse('2026-03-01T12:00:00.000Z');
export const UPDATE_GOLDEN = process.env['UPDATE_GOLDEN'] === '1';

export function declaredPolicy(p: Partial<DeclaredPolicy> & { name: string }): DeclaredPolicy {
  const kind = p.kind ?? 'native';
  const file = p.file ?? `policies/${p.name}.${kind === 'opa' ? 'rego' : 'native'}`;
  const code = p.code ?? '';
  return {
    kind, file, settingsFile: null, description: null, enforcementLevel: 'advisory', query: null, policySets: null,
    codeSource: { root: '/repo', path: `/repo/${file}`, size: Buffer.byteLength(code), fileSha256: createHash('sha256').update(code).digest('hex') },
    codeDigest: codeDigest(code), codeLines: lineCount(Buffer.from(code)), ...p, code,
  };
}

export function declaredPool(p: Partial<DeclaredPool> & { name: string }): DeclaredPool {
  return {
    file: `agent-pools/${p.name}.yaml`, organizationScoped: true, allowedWorkspaces: null, previousNames: [],
    agentCleanup: null, ...p,
  };
}

export function livePolicy(p: Partial<LivePolicy> & { name: string }): LivePolicy {
  const id = p.id ?? `pol-${p.name}`;
  const code = p.code === undefined ? '' : p.code;
  return {
    id, description: null, kind: 'native', query: null, enforcementLevel: 'advisory',
    policySetIds: [], updatedAt: '2026-01-01T00:00:00.000Z', ...p, code, codeDigest: code === null ? null : codeDigest(code),
  };
}

/** A fixture's agent; `createdAt` may be left out (null), as when the answer lacks it. */
export type FixtureAgent = Omit<LiveAgent, 'createdAt'> & { createdAt?: string | null };

export function livePool(p: Omit<Partial<LivePool>, 'agents'> & { name: string; agents?: FixtureAgent[] }): LivePool {
  return {
    id: `apool-${p.name}`, organizationScoped: true, agentCount: 0, allowedWorkspaceIds: [], allowedProjectIds: [], excludedWorkspaceIds: [], workspaceIds: [], ...p,
    agents: (p.agents ?? []).map((agent) => ({ ...agent, createdAt: agent.createdAt ?? null })),
  };
}

export function defaultOptions(options: Partial<PlanOptions> = {}): PlanOptions {
  return { source: 'main', ownership: 'marker', prune: false, allowEmpty: false, maxDeletes: 10, force: false, now: NOW, ...options };
}

export interface PlanCase {
  name: string;
  dir: string;
  declared: DeclaredState;
  live: LiveState;
  options: PlanOptions;
}

async function readJson<T>(file: string, fallback: T): Promise<T> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw error;
  }
}

/** Every `test/fixtures/plan-*` folder: declared.json, live.json, options.json (optional), expected.json. */
export async function loadPlanCases(): Promise<PlanCase[]> {
  const dirs = (await readdir(FIXTURES)).filter((name) => name.startsWith('plan-')).sort();
  const cases: PlanCase[] = [];
  for (const name of dirs) {
    const dir = path.join(FIXTURES, name);
    const declared = await readJson<{ policies?: DeclaredPolicy[]; pools?: DeclaredPool[] }>(path.join(dir, 'declared.json'), {});
    const live = await readJson<{ policies?: LivePolicy[]; pools?: Array<Omit<LivePool, 'agents'> & { agents?: FixtureAgent[] }> }>(path.join(dir, 'live.json'), {});
    const options = await readJson<Partial<PlanOptions>>(path.join(dir, 'options.json'), {});
    cases.push({
      name,
      dir,
      declared: { policies: (declared.policies ?? []).map(declaredPolicy), pools: (declared.pools ?? []).map(declaredPool) },
      live: { policies: (live.policies ?? []).map(livePolicy), pools: (live.pools ?? []).map(livePool) },
      options: defaultOptions(options),
    });
  }
  return cases;
}

/** What a table fixture pins of a plan: the changes without the declared and live objects they came from. */
export function summarizePlan(plan: Plan): unknown {
  return {
    changes: plan.changes.map((change: Change) => ({
      resource: change.resource,
      name: change.name,
      id: change.id,
      action: change.action,
      reason: change.reason,
      fields: change.fields,
      ...(change.resource === 'policy' ? { uploadCode: change.uploadCode } : {}),
      ...(change.resource === 'agent' ? { poolName: change.poolName } : {}),
    })),
    warnings: plan.warnings,
    errors: plan.errors,
    keptUndeclared: plan.keptUndeclared,
  };
}

export async function expectedFor(dir: string, actual: unknown): Promise<unknown> {
  const file = path.join(dir, 'expected.json');
  if (UPDATE_GOLDEN) await writeFile(file, `${JSON.stringify(actual, null, 2)}\n`);
  return JSON.parse(await readFile(file, 'utf8'));
}
