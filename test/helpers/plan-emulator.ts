/**
 * A plan fixture's live state put into the real emulator, so a plan can be applied for real: one
 * organization per fixture, its pools and agents from the seed, its policies (and their code) created
 * through the API. Declared code is written to a temp folder, from where the apply reads and checks it.
 */
import { createHash } from 'node:crypto';
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ApiClient } from '../../src/api/client.js';
import type { CodeSource, DeclaredState } from '../../src/declared/types.js';
import type { SeedOrganization } from '../../src/emulator/index.js';
import { readLive } from '../../src/live/read-live.js';
import { silentLogger } from '../../src/logger.js';
import type { LiveState } from '../../src/model.js';
import type { PlanCase } from './plan-fixtures.js';

/** The organization of a fixture, with every workspace and policy set its declared and live state mention. */
export function organizationFor(c: PlanCase): SeedOrganization {
  const workspaces = new Set([
    ...c.declared.pools.flatMap((p) => p.allowedWorkspaces ?? []),
    ...c.live.pools.flatMap((p) => p.allowedWorkspaceIds),
  ]);
  const policySets = new Set([
    ...c.declared.policies.flatMap((p) => p.policySets ?? []),
    ...c.live.policies.flatMap((p) => p.policySetIds),
  ]);
  return {
    name: c.name,
    maxAgentPools: c.declared.pools.length + c.live.pools.length + 1,
    workspaces: [...workspaces].map((id) => ({ id, name: id.slice('ws-'.length) })),
    policySets: [...policySets],
    agentPools: c.live.pools.map((pool) => ({
      name: pool.name,
      organizationScoped: pool.organizationScoped,
      allowedWorkspaces: pool.allowedWorkspaceIds,
      agents: [
        ...pool.agents.map((agent) => ({
          ...(agent.name === null ? {} : { name: agent.name }),
          status: agent.status,
          lastPingAt: agent.lastPingAt,
          ...(agent.createdAt === null ? {} : { createdAt: agent.createdAt }),
        })),
        // A fixture lists agents only where the planner reads them; the others only count.
        ...Array.from({ length: Math.max(0, pool.agentCount - pool.agents.length) }, () => ({ status: 'idle' as const })),
      ],
    })),
  };
}

export interface EmulatedCase {
  api: ApiClient;
  /** The declared state with each policy's code on disk, where the apply uploads it from. */
  declared: DeclaredState;
  readLive(): Promise<LiveState>;
}

/** Creates the fixture's live policies (uploading their code, unless it was never uploaded) in its organization. */
export async function emulateCase(c: PlanCase, baseUrl: string, token: string, dir: string): Promise<EmulatedCase> {
  const api = new ApiClient({ baseUrl, token, logger: silentLogger() });
  for (const policy of c.live.policies) {
    const created = await api.createPolicy(c.name, {
      name: policy.name,
      kind: policy.kind,
      description: policy.description,
      enforcementLevel: policy.enforcementLevel,
      query: policy.query,
      policySetIds: policy.policySetIds,
    });
    if (policy.code !== null) await api.uploadPolicy(created.id, Buffer.from(policy.code));
  }
  await mkdir(path.join(dir, 'declared'), { recursive: true });
  const root = await realpath(path.join(dir, 'declared'));
  const policies = await Promise.all(c.declared.policies.map(async (policy) => ({
    ...policy,
    codeSource: await writeCode(root, policy.file, policy.code ?? ''),
  })));
  const declared = { ...c.declared, policies };
  return {
    api,
    declared,
    readLive: () => readLive({ api, organization: c.name, declared, logger: silentLogger() }),
  };
}

/** Writes a declared policy's code where the apply reads it from, with the digest the apply checks. */
async function writeCode(root: string, file: string, code: string): Promise<CodeSource> {
  const abs = path.join(root, file);
  await mkdir(path.dirname(abs), { recursive: true });
  const bytes = Buffer.from(code);
  await writeFile(abs, bytes);
  return { root, path: abs, size: bytes.length, fileSha256: createHash('sha256').update(bytes).digest('hex') };
}
