/**
 * Scope and access lists by name (plan/names.ts), table tests of the pure resolver: a name before an id, an id only
 * when it has an id's shape and the organization has it, names in NFC, `*` as prefix, suffix or both, and `["*"]`
 * said to be a snapshot.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeclaredPolicySet, DeclaredState, SetScope } from '../src/declared/types.js';
import type { LiveState } from '../src/model.js';
import { resolveNames } from '../src/plan/names.js';
import { declaredPool } from './helpers/plan-fixtures.js';

const WORKSPACES = [
  { id: 'ws-AppProd000001', name: 'app-prod' },
  { id: 'ws-AppStage00001', name: 'app-staging' },
  { id: 'ws-DataProd00001', name: 'data-prod' },
  { id: 'ws-Staging000001', name: 'ws-staging' },
  { id: 'ws-WsTools000001', name: 'ws-tools' },
  { id: 'ws-Cafe0000000001', name: 'café-prod'.normalize('NFC') },
];
const PROJECTS = [{ id: 'prj-Payments00001', name: 'Payments' }, { id: 'prj-Prjlike00001', name: 'prj-like' }];
const LIVE: LiveState = { policies: [], pools: [], workspaces: WORKSPACES, projects: PROJECTS };

function set(scope: Partial<SetScope>): DeclaredPolicySet {
  return {
    name: 'prod', kind: 'native', settingsFile: 'policy-sets/prod.yaml', description: null, global: false, overridable: null, agentEnabled: null,
    policyToolVersion: null, scope: { workspaces: null, projects: null, workspaceExclusions: null, projectExclusions: null, ...scope }, parameters: null,
    sensitiveDigest: null, content: null,
  };
}

function resolveScope(scope: Partial<SetScope>) {
  const declared: DeclaredState = { policies: [], pools: [], policySets: [set(scope)] };
  const resolved = resolveNames(declared, LIVE);
  return { scope: resolved.declared.policySets![0]!.scope, errors: resolved.errors, warnings: resolved.warnings, wildcards: resolved.wildcards.get('policy-set:prod') };
}

describe('a scope entry is a name before it is an id', () => {
  it('a workspace named like an id is that workspace, in a set and in a pool', () => {
    assert.deepEqual(resolveScope({ workspaces: ['ws-staging'] }), {
      scope: { workspaces: ['ws-Staging000001'], projects: null, workspaceExclusions: null, projectExclusions: null }, errors: [], warnings: [], wildcards: [],
    });
    const pool = resolveNames({ policies: [], pools: [declaredPool({ name: 'p', allowedWorkspaces: ['ws-staging'], allowedProjects: ['prj-like'] })] }, LIVE);
    assert.deepEqual(pool.errors, []);
    assert.deepEqual(pool.declared.pools[0]!.allowedWorkspaces, ['ws-Staging000001']);
    assert.deepEqual(pool.declared.pools[0]!.allowedProjects, ['prj-Prjlike00001']);
  });

  it('a wildcard with an id\'s prefix matches names, never passes as an id', () => {
    const { scope, errors, wildcards } = resolveScope({ workspaces: ['ws-*'] });
    assert.deepEqual(errors, []);
    assert.deepEqual(scope.workspaces, ['ws-Staging000001', 'ws-WsTools000001']);
    assert.deepEqual(wildcards, [{ field: 'workspaces', pattern: 'ws-*', matched: ['ws-staging', 'ws-tools'] }]);
    const pool = resolveNames({ policies: [], pools: [declaredPool({ name: 'p', allowedWorkspaces: ['ws-*'] })] }, LIVE);
    assert.deepEqual(pool.declared.pools[0]!.allowedWorkspaces, ['ws-Staging000001', 'ws-WsTools000001']);
  });

  it('an id is checked to exist: one that names nothing is a plan error, not a 422 at apply', () => {
    assert.deepEqual(resolveScope({ workspaces: ['ws-AppProd000001'] }).scope.workspaces, ['ws-AppProd000001']);
    const missing = resolveScope({ workspaces: ['ws-Nothing0000001'], projects: ['prj-Nothing000001'] });
    assert.deepEqual(missing.scope.workspaces, []);
    assert.deepEqual(missing.errors, [
      'policy-sets/prod.yaml: policy set "prod": workspaces "ws-Nothing0000001" names no workspace of the organization, by name or by id',
      'policy-sets/prod.yaml: policy set "prod": projects "prj-Nothing000001" names no project of the organization, by name or by id',
    ]);
    const pool = resolveNames({ policies: [], pools: [declaredPool({ name: 'p', allowedWorkspaces: ['ws-Nothing0000001'] })] }, LIVE);
    assert.deepEqual(pool.errors, [`${pool.declared.pools[0]!.file}: agent pool "p": allowed-workspaces "ws-Nothing0000001" names no workspace of the organization, by name or by id`]);
  });

  it('names are compared in Unicode NFC: a name typed decomposed (NFD) matches', () => {
    const nfd = 'café-prod'.normalize('NFD');
    assert.notEqual(nfd, WORKSPACES[5]!.name);
    const { scope, errors } = resolveScope({ workspaces: [nfd], workspaceExclusions: ['caf\u0065\u0301-*'] });
    assert.deepEqual(errors, []);
    assert.deepEqual(scope.workspaces, ['ws-Cafe0000000001']);
    assert.deepEqual(scope.workspaceExclusions, ['ws-Cafe0000000001']);
  });

  it('* as a prefix, a suffix or both', () => {
    const cases: Array<[string, string[]]> = [
      ['*-prod', ['ws-AppProd000001', 'ws-Cafe0000000001', 'ws-DataProd00001']],
      ['app-*', ['ws-AppProd000001', 'ws-AppStage00001']],
      ['*stag*', ['ws-AppStage00001', 'ws-Staging000001']],
      ['app-prod', ['ws-AppProd000001']],
    ];
    for (const [pattern, ids] of cases) assert.deepEqual(resolveScope({ workspaces: [pattern] }).scope.workspaces, ids, pattern);
    assert.deepEqual(resolveScope({ projects: ['pay*'] }).scope.projects, ['prj-Payments00001'], 'project names without case');
  });

  it('*x matches the names that end in x only, x* those that begin with it only', () => {
    const live: LiveState = { ...LIVE, workspaces: [{ id: 'ws-AppProd000001', name: 'app-prod' }, { id: 'ws-ProdDb0000001', name: 'prod-db' }, { id: 'ws-PreProdX00001', name: 'preprod-x' }] };
    const resolved = (pattern: string) => resolveNames({ policies: [], pools: [], policySets: [set({ workspaces: [pattern] })] }, live).declared.policySets![0]!.scope.workspaces;
    assert.deepEqual(resolved('*prod'), ['ws-AppProd000001']);
    assert.deepEqual(resolved('prod*'), ['ws-ProdDb0000001']);
    assert.deepEqual(resolved('*prod*'), ['ws-AppProd000001', 'ws-PreProdX00001', 'ws-ProdDb0000001']);
  });

  it('["*"] is a warning that says it is a snapshot and suggests global: true', () => {
    const { scope, warnings } = resolveScope({ workspaces: ['*'] });
    assert.equal(scope.workspaces?.length, WORKSPACES.length);
    assert.deepEqual(warnings, [
      `policy-sets/prod.yaml: policy set "prod": workspaces ["*"] is a snapshot of the organization's ${WORKSPACES.length} workspaces when the plan is made: a workspace made later is not in it; for every workspace, today's and tomorrow's, write global: true instead`,
    ]);
    const pool = resolveNames({ policies: [], pools: [declaredPool({ name: 'p', allowedWorkspaces: ['*'] })] }, LIVE);
    assert.match(pool.warnings.join('\n'), /agent pool "p": allowed-workspaces \["\*"\] is a snapshot .* write organization-scoped: true instead/);
  });
});
