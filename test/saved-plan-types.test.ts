/**
 * The saved plan is read through schemas/plan.schema.json into the TypeScript types of a plan (plan/types.ts,
 * plan/refs.ts, plan/saved.ts): the two must say the same. Each type's keys are listed here as required or optional,
 * which the compiler checks against the type (a key added, removed or made optional there breaks the build of this
 * test), and the test checks the same against the schema's definition (a key changed there fails it).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { AgentStatus, EnforcementLevel, Ownership, PolicyKind } from '../src/model.js';
import type { CodeRef, LiveAgentRef, LivePolicyRef, LivePolicySetRef, LivePoolRef, PolicySetSpec, PolicySpec, PoolSpec, TokenSpec, LiveTokenRef } from '../src/plan/refs.js';
import type { SavedRun, SavedRunSource, SavedSource } from '../src/plan/saved.js';
import type { AgentChange, ChangeAction, PolicyChange, PolicySetChange, PoolChange, ResourceType, TokenChange, TokenStatus } from '../src/plan/types.js';
import type { AgentCleanup, CodeSource, SetContent } from '../src/declared/types.js';
import { REPO_ROOT } from './helpers/repo-root.js';

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/** Every key of T, each marked as T has it. */
type Keys<T> = { [K in keyof T]-?: K extends OptionalKeys<T> ? 'optional' : 'required' };
/** Every member of a string union. */
type Members<T extends string> = { [K in T]: true };

interface JsonSchema {
  properties?: Record<string, JsonSchema | boolean>;
  required?: string[];
  enum?: string[];
  items?: JsonSchema;
  allOf?: JsonSchema[];
  then?: JsonSchema;
  if?: JsonSchema;
  $ref?: string;
}

const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas/plan.schema.json'), 'utf8')) as JsonSchema & { $defs: Record<string, JsonSchema> };
const defs = schema.$defs;

function keysOf(definition: JsonSchema, extra: JsonSchema = {}): Record<string, 'required' | 'optional'> {
  const required = new Set([...(definition.required ?? []), ...(extra.required ?? [])]);
  const names = [...Object.keys(definition.properties ?? {}), ...Object.entries(extra.properties ?? {}).filter(([, v]) => v !== false).map(([k]) => k)];
  return Object.fromEntries([...new Set(names)].sort().map((key) => [key, required.has(key) ? 'required' : 'optional']));
}

function sorted(keys: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(keys).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** The saved-plan branch of a change of one resource type (`then` of its `if`). */
function savedBranch(resource: ResourceType): JsonSchema {
  const branch = defs['savedChange']!.allOf!.find((s) => (s.if?.properties?.['resource'] as JsonSchema & { const?: string } | undefined)?.const === resource);
  assert.ok(branch?.then, resource);
  return branch.then;
}

/** A change's keys: the JSON plan's change (without the apply's outcome and message) and its saved-plan branch. */
function changeKeys(resource: ResourceType): Record<string, string> {
  const all = keysOf(defs['change']!, savedBranch(resource));
  const forbidden = Object.entries(savedBranch(resource).properties ?? {}).filter(([, v]) => v === false).map(([k]) => k);
  return Object.fromEntries(Object.entries(all).filter(([k]) => !['outcome', 'message', ...forbidden].includes(k)));
}

const ENUMS = {
  status: { idle: true, busy: true, exited: true, errored: true, unknown: true } satisfies Members<AgentStatus>,
  kind: { native: true, opa: true } satisfies Members<PolicyKind>,
  level: { 'hard-mandatory': true, 'soft-mandatory': true, advisory: true, mandatory: true } satisfies Members<EnforcementLevel>,
  action: { create: true, update: true, replace: true, delete: true } satisfies Members<ChangeAction>,
  resource: { policy: true, 'policy-set': true, 'agent-pool': true, agent: true, 'agent-token': true } satisfies Members<ResourceType>,
  ownership: { marker: true, organization: true } satisfies Members<Ownership>,
};

describe('the saved plan\'s TypeScript types and its schema agree', () => {
  it('in the keys of each shape, and which are required', () => {
    const base = { name: 'required', id: 'required', action: 'required', reason: 'required', fields: 'required', evidence: 'optional' } as const;
    const cases: Array<[string, Record<string, string>, Record<string, string>]> = [
      ['livePolicy', keysOf(defs['livePolicy']!), {
        id: 'required', name: 'required', kind: 'required', description: 'required', query: 'required', enforcementLevel: 'required',
        policySetIds: 'required', policySetCount: 'optional', updatedAt: 'required', codeDigest: 'required',
      } satisfies Keys<LivePolicyRef>],
      ['livePool', keysOf(defs['livePool']!), {
        id: 'required', name: 'required', organizationScoped: 'required', allowedWorkspaceIds: 'required', allowedProjectIds: 'required', excludedWorkspaceIds: 'required',
      } satisfies Keys<LivePoolRef>],
      ['liveAgent', keysOf(defs['liveAgent']!), { id: 'required', status: 'required', lastPingAt: 'required' } satisfies Keys<LiveAgentRef>],
      ['policySpec', keysOf(defs['policySpec']!), {
        kind: 'required', description: 'required', enforcementLevel: 'required', query: 'required', policySets: 'required', code: 'required', rollout: 'optional',
      } satisfies Keys<PolicySpec>],
      ['policySpec.code', keysOf(defs['policySpec']!.properties!['code'] as JsonSchema), {
        sha256: 'required', bytes: 'required', lines: 'required', file: 'required', source: 'required',
      } satisfies Keys<CodeRef>],
      ['policySpec.code.source', keysOf((defs['policySpec']!.properties!['code'] as JsonSchema).properties!['source'] as JsonSchema), {
        root: 'required', path: 'required', size: 'required', fileSha256: 'required',
      } satisfies Keys<CodeSource>],
      ['poolSpec', keysOf(defs['poolSpec']!), {
        file: 'required', organizationScoped: 'required', allowedWorkspaces: 'required', allowedProjects: 'required', excludedWorkspaces: 'required',
        previousNames: 'required', agentCleanup: 'required',
      } satisfies Keys<PoolSpec>],
      ['poolSpec.agentCleanup', keysOf(defs['poolSpec']!.properties!['agentCleanup'] as JsonSchema), {
        statuses: 'required', afterMs: 'required', after: 'required',
      } satisfies Keys<AgentCleanup>],
      ['policy change', changeKeys('policy'), {
        ...base, resource: 'required', declared: 'required', live: 'required', uploadCode: 'required', adoptMarker: 'required',
      } satisfies Keys<PolicyChange>],
      ['livePolicySet', keysOf(defs['livePolicySet']!), {
        id: 'required', name: 'required', kind: 'required', description: 'required', global: 'required', overridable: 'required', agentEnabled: 'required',
        policyToolVersion: 'required', versioned: 'required', vcsBacked: 'required', currentVersionId: 'required', newestVersion: 'required',
        workspaceIds: 'required', projectIds: 'required', workspaceExclusionIds: 'required', projectExclusionIds: 'required', parameters: 'required',
        tagSelectors: 'optional', scopingType: 'optional', tagMatch: 'optional',
      } satisfies Keys<LivePolicySetRef>],
      ['policySetSpec', keysOf(defs['policySetSpec']!), {
        kind: 'required', settingsFile: 'required', description: 'required', global: 'required', overridable: 'required', agentEnabled: 'required',
        policyToolVersion: 'required', scope: 'required', parameters: 'required', sensitiveDigest: 'required', content: 'required', tags: 'optional', rollout: 'optional',
      } satisfies Keys<PolicySetSpec>],
      ['setContent', keysOf(defs['setContent']!), {
        folder: 'required', root: 'required', configFile: 'required', digest: 'required', bytes: 'required', files: 'required', policies: 'required', modules: 'required', levels: 'optional', held: 'optional',
      } satisfies Keys<SetContent>],
      ['policy-set change', changeKeys('policy-set'), {
        ...base, resource: 'required', declared: 'required', live: 'required', uploadContent: 'required', adoptMarker: 'required', contentFiles: 'optional', scope: 'optional',
      } satisfies Keys<PolicySetChange>],
      ['agent-pool change', changeKeys('agent-pool'), { ...base, resource: 'required', declared: 'required', live: 'required', scope: 'optional' } satisfies Keys<PoolChange>],
      ['agent change', changeKeys('agent'), { ...base, resource: 'required', poolName: 'required', live: 'required' } satisfies Keys<AgentChange>],
      ['agent-token change', changeKeys('agent-token'), { ...base, resource: 'required', poolName: 'required', declared: 'required', live: 'required' } satisfies Keys<TokenChange>],
      ['tokenSpec', keysOf(defs['tokenSpec']!), { description: 'required', file: 'required', secret: 'required' } satisfies Keys<TokenSpec>],
      ['liveTokens', keysOf(defs['liveTokens']!), { poolId: 'required', tokenIds: 'required', token: 'required' } satisfies Keys<LiveTokenRef>],
      ['tokenStatus', keysOf(defs['tokenStatus']!), { pool: 'required', description: 'required', id: 'required', age: 'required', lastUsedAt: 'required', note: 'required' } satisfies Keys<TokenStatus>],
      ['source', keysOf(defs['source']!), {
        name: 'required', organization: 'required', revision: 'required', changes: 'required', warnings: 'required', errors: 'required', rollouts: 'optional', tokens: 'optional',
      } satisfies Keys<SavedSource>],
      ['run', keysOf(schema.properties!['run'] as JsonSchema), {
        api_url: 'required', native_kind: 'optional', legacy_enforce: 'optional', sources: 'required',
      } satisfies Keys<SavedRun>],
      ['runSource', keysOf(defs['runSource']!), {
        name: 'required', organization: 'required', path: 'required', git: 'required', prune: 'required', ownership: 'required',
        max_deletes: 'required', allow_empty: 'required', adopt: 'required', max_agent_pools: 'required', strict_imports: 'optional', force: 'optional',
      } satisfies Keys<SavedRunSource>],
    ];
    for (const [name, inSchema, inType] of cases) assert.deepEqual(inSchema, sorted(inType), name);
  });

  it('in the values of each enumeration', () => {
    const enumOf = (s: JsonSchema | boolean | undefined) => [...((s as JsonSchema).enum ?? [])].sort();
    const members = (m: object) => Object.keys(m).sort();
    const cleanup = defs['poolSpec']!.properties!['agentCleanup'] as JsonSchema;
    assert.deepEqual(enumOf((cleanup.properties!['statuses'] as JsonSchema).items), members(ENUMS.status), 'agent clean-up statuses');
    assert.deepEqual(enumOf(defs['policySpec']!.properties!['kind']), members(ENUMS.kind), 'policy kind');
    assert.deepEqual(enumOf(defs['livePolicy']!.properties!['kind']), members(ENUMS.kind), 'live policy kind');
    assert.deepEqual(enumOf(defs['policySpec']!.properties!['enforcementLevel']), members(ENUMS.level), 'enforcement level');
    assert.deepEqual(enumOf(defs['livePolicy']!.properties!['enforcementLevel']), members(ENUMS.level), 'live enforcement level');
    assert.deepEqual(enumOf(defs['change']!.properties!['action']), members(ENUMS.action), 'action');
    assert.deepEqual(enumOf(defs['change']!.properties!['resource']), members(ENUMS.resource), 'resource');
    assert.deepEqual(enumOf(defs['runSource']!.properties!['ownership']), members(ENUMS.ownership), 'ownership');
  });
});
