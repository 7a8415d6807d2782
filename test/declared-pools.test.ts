import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readDeclared } from '../src/declared/index.js';
import type { SourceProblem } from '../src/errors.js';
import { problemsOf } from './helpers/declared-problems.js';
import { useTempTrees, type TreeEntry } from './helpers/temp-tree.js';

describe('agent pools', () => {
  const dirOf = useTempTrees();
  async function problems(files: Record<string, TreeEntry>, maxAgentPools = 5): Promise<SourceProblem[]> {
    return problemsOf(readDeclared(await dirOf(files), { maxAgentPools }));
  }

  it('reads every key, and defaults for an empty file', async () => {
    const dir = await dirOf({
      'agent-pools/build.yaml': [
        'organization-scoped: false',
        'allowed-workspaces: [ws-abc123, ws-def456]',
        'previous-names: [builders, old_build]',
        'agent-cleanup:',
        '  statuses: [exited, errored]',
        '  after: 15m',
        '',
      ].join('\n'),
      'agent-pools/default.yaml': '',
      'agent-pools/managed-none.yaml': 'allowed-workspaces: []\n',
    });
    const { pools, policies } = await readDeclared(dir, { maxAgentPools: 3 });
    assert.deepEqual(policies, []);
    assert.deepEqual(pools, [
      {
        name: 'build',
        file: 'agent-pools/build.yaml',
        organizationScoped: false,
        allowedWorkspaces: ['ws-abc123', 'ws-def456'],
        previousNames: ['builders', 'old_build'],
        agentCleanup: { statuses: ['exited', 'errored'], after: '15m', afterMs: 900_000 },
        // The lines of the access lists and their entries, for a name that matches nothing to name its line.
        lines: { 'allowed-workspaces': 2, 'allowed-workspaces.0': 2, 'allowed-workspaces.1': 2 },
      },
      { name: 'default', file: 'agent-pools/default.yaml', organizationScoped: true, allowedWorkspaces: null, previousNames: [], agentCleanup: null, lines: {} },
      { name: 'managed-none', file: 'agent-pools/managed-none.yaml', organizationScoped: true, allowedWorkspaces: [], previousNames: [], agentCleanup: null, lines: { 'allowed-workspaces': 1 } },
    ]);
  });

  it('durations in s, m, h and d', async () => {
    for (const [after, ms] of [['30s', 30_000], ['1h', 3_600_000], ['2d', 172_800_000]] as const) {
      const dir = await dirOf({ 'agent-pools/p.yaml': `agent-cleanup: {statuses: [unknown], after: ${after}}\n` });
      const { pools } = await readDeclared(dir);
      assert.equal(pools[0]?.agentCleanup?.afterMs, ms, after);
    }
  });

  it('only yaml files directly in agent-pools/ are pools', async () => {
    const dir = await dirOf({
      'agent-pools/main.yaml': '{}\n',
      'agent-pools/README.md': '# pools\n',
      'agent-pools/archive/old.yaml': 'bad: key\n',
      'agent-pools/.draft.yaml': 'bad: key\n',
      'policies/agent-pools/not-a-pool.yaml': 'description: x\n',
      'policies/agent-pools/not-a-pool.native': 'main = rule { true }\n',
    });
    const state = await readDeclared(dir);
    assert.deepEqual(state.pools.map((pool) => pool.name), ['main']);
    assert.deepEqual(state.policies.map((policy) => policy.name), ['not-a-pool']);
  });

  it('more pools than max-agent-pools is an error naming the files, the guard and how to raise it (default 1)', async () => {
    const dir = await dirOf({ 'agent-pools/one.yaml': '{}\n', 'agent-pools/two.yaml': '{}\n' });
    const found = await problemsOf(readDeclared(dir));
    assert.deepEqual(found, [
      {
        file: 'agent-pools',
        message:
          'declares 2 agent pools (agent-pools/one.yaml, agent-pools/two.yaml) but max-agent-pools is 1: that is this tool\'s own guard ' +
          'against declaring more pools than meant, not the organization\'s limit. Remove pools, or raise it to what the organization ' +
          'allows with --max-agent-pools 2 (or max-agent-pools: 2 on the source in the config)',
      },
    ]);
    assert.equal((await readDeclared(dir, { maxAgentPools: 2 })).pools.length, 2);
  });

  it('schema problems name the file and line, all at once', async () => {
    const yaml = [
      'organization-scoped: "yes"',
      'allowed-workspaces:',
      '  - ws-ok',
      '  - polset-nope',
      'previous-names: [fine, "bad name"]',
      'agent-cleanup:',
      '  statuses: [exited, idle]',
      '  after: 1 hour',
      '  every: 5m',
      'colour: blue',
      '',
    ].join('\n');
    assert.deepEqual(await problems({ 'agent-pools/p.yaml': yaml }), [
      { file: 'agent-pools/p.yaml', line: 1, message: 'organization-scoped must be true or false, not "yes"' },
      { file: 'agent-pools/p.yaml', line: 4, message: 'allowed-workspaces[1] "polset-nope" is not a workspace name or id (a name: letters, digits, - and _, * as prefix, suffix or both; an id: ws- followed by at most 64 letters, digits, - and _; never another resource\'s id; a workspace of that name is taken before an id)' },
      { file: 'agent-pools/p.yaml', line: 5, message: 'previous-names[1] "bad name" is not a valid name (letters, digits, - and _)' },
      { file: 'agent-pools/p.yaml', line: 7, message: 'agent-cleanup.statuses[1] "idle" is not one of: exited, errored, unknown' },
      {
        file: 'agent-pools/p.yaml',
        line: 8,
        message: 'agent-cleanup.after "1 hour" is not a duration (a whole number followed by s, m, h or d, e.g. 30s, 15m, 1h, 2d)',
      },
      { file: 'agent-pools/p.yaml', line: 9, message: 'unknown key "every" in agent-cleanup (allowed: statuses, after)' },
      {
        file: 'agent-pools/p.yaml',
        line: 10,
        message: 'unknown key "colour" (allowed: organization-scoped, allowed-workspaces, allowed-projects, excluded-workspaces, previous-names, tokens, agent-cleanup)',
      },
    ]);
  });

  it('access lists take a name that looks like an id, a wildcard with an id\'s prefix and a name in any Unicode form', async () => {
    const nfd = 'café-prod'.normalize('NFD');
    const dir = await dirOf({ 'agent-pools/p.yaml': `organization-scoped: false\nallowed-workspaces: [ws-staging, "ws-*", ${nfd}]\nallowed-projects: ["prj-*", Zürich Team]\n` });
    const declared = await readDeclared(dir, { maxAgentPools: 5 });
    assert.deepEqual(declared.pools[0]?.allowedWorkspaces, ['ws-staging', 'ws-*', nfd]);
    assert.deepEqual(declared.pools[0]?.allowedProjects, ['prj-*', 'Zürich Team']);
  });

  it('agent-cleanup needs both keys and at least one status', async () => {
    assert.deepEqual(await problems({ 'agent-pools/p.yaml': 'agent-cleanup:\n  statuses: []\n' }), [
      { file: 'agent-pools/p.yaml', line: 1, message: 'agent-cleanup is missing the key "after"' },
      { file: 'agent-pools/p.yaml', line: 2, message: 'agent-cleanup.statuses must not be empty' },
    ]);
  });

  it('a previous name may not be a declared pool, the pool itself, or claimed twice', async () => {
    const found = await problems({
      'agent-pools/alpha.yaml': 'previous-names:\n  - beta\n  - alpha\n  - gamma\n',
      'agent-pools/beta.yaml': '{}\n',
      'agent-pools/delta.yaml': 'previous-names: [gamma]\n',
    });
    assert.deepEqual(found, [
      { file: 'agent-pools/alpha.yaml', line: 2, message: 'previous-names[0] "beta" is the name of another declared pool (agent-pools/beta.yaml)' },
      { file: 'agent-pools/alpha.yaml', line: 3, message: 'previous-names[1] "alpha" is the pool\'s own name' },
      {
        file: 'agent-pools/delta.yaml',
        line: 1,
        message: 'previous-names[0] "gamma" is also claimed by agent-pools/alpha.yaml; only one pool can be renamed from it',
      },
    ]);
  });

  it('YAML syntax errors in a pool file name the line', async () => {
    const found = await problems({ 'agent-pools/p.yaml': 'organization-scoped: true\nallowed-workspaces: [ws-a\n' });
    assert.equal(found[0]?.file, 'agent-pools/p.yaml');
    assert.equal(found[0]?.line, 2);
    assert.match(found[0]?.message ?? '', /^YAML syntax error/);
  });
});
