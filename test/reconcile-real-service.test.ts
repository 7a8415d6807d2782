import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ApiClient } from '../src/api/client.js';
import { applyPlan } from '../src/apply/apply.js';
import { readDeclared } from '../src/declared/index.js';
import { silentLogger } from '../src/logger.js';
import { readLive } from '../src/live/read-live.js';
import { withMarker } from '../src/plan/marker.js';
import { planChanges } from '../src/plan/plan.js';
import { runCli } from './helpers/cli.js';
import { smallRepo } from './helpers/repos.js';
import type { FaultSpec } from '../src/emulator/index.js';
import { ORG, POLICY_SET, WORKSPACES } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

interface Resource {
  id: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data?: Array<{ id: string }> }>;
}

const OLD = '2026-01-01T00:00:00.000Z';
const APP = WORKSPACES[0]!.id;

/** The repo of smallRepo(), its pool renamed from a restricted live pool and cleaning up old agents. */
function repoWithRename(): Record<string, string> {
  return {
    ...smallRepo(),
    'agent-pools/build.yaml': [
      'previous-names: [build-old]',
      'organization-scoped: false',
      `allowed-workspaces: [${APP}]`,
      'agent-cleanup: { statuses: [exited, errored], after: 1h }',
      '',
    ].join('\n'),
  };
}

function seedOrganization() {
  return {
    name: ORG,
    maxAgentPools: 1,
    workspaces: WORKSPACES,
    policySets: [POLICY_SET],
    agentPools: [{
      name: 'build-old',
      organizationScoped: false,
      allowedWorkspaces: [APP],
      agents: [
        { name: 'gone', status: 'exited' as const, ipAddress: '10.0.0.5', lastPingAt: OLD },
        { name: 'broken', status: 'errored' as const, ipAddress: '10.0.0.6', lastPingAt: OLD },
        { name: 'working', status: 'busy' as const, ipAddress: '10.0.0.8', lastPingAt: OLD },
      ],
    }],
  };
}

async function list(world: World, path: string): Promise<Resource[]> {
  return ((await world.call('GET', path)).json as { data: Resource[] }).data;
}

async function createStray(world: World, name: string, description: string): Promise<string> {
  const created = await world.call('POST', `/organizations/${ORG}/policies`, { body: {
    data: { type: 'policies', attributes: { name, description, kind: 'native', 'enforcement-level': 'advisory' } },
  } });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  return (created.json as { data: Resource }).data.id;
}

describe('one pass against the service read at its strictest (the emulator as it starts)', () => {
  const fixture = useWorld({ organizations: [seedOrganization()] });

  it('reconciles with prune, a pool rename and an agent clean-up in one pass, though a delete answer is lost', async () => {
    const world = fixture.world;
    const [pool] = await list(world, `/organizations/${ORG}/agent-pools`);
    assert.ok(pool);
    await createStray(world, 'stray-owned', withMarker('left behind', 'default'));
    await createStray(world, 'stray-foreign', 'made by hand');
    const dir = await fixture.repo(repoWithRename());
    // The first DELETE is done but its answer never arrives: the retry meets 404, which is "deleted".
    await world.addFaults({ kind: 'lose-response', method: 'DELETE', count: 1 });
    await world.clearRequests();

    const run = await world.cli('--reconcile', dir, ['--prune', '--source', 'default']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /Apply complete!/);

    const deletes = (await world.requests()).filter((r) => r.method === 'DELETE');
    assert.equal(deletes.filter((r) => r.status === null).length, 1, 'one answer was lost');
    assert.equal(deletes.filter((r) => r.status === 404).length, 1, 'its retry found the resource gone');
    assert.ok(deletes.every((r) => r['content-type'] === 'application/vnd.api+json'), JSON.stringify(deletes));

    const [renamed, ...others] = await list(world, `/organizations/${ORG}/agent-pools`);
    assert.deepEqual(others, []);
    assert.equal(renamed?.id, pool.id, 'renamed in place');
    assert.equal(renamed?.attributes['name'], 'build');
    assert.equal(renamed?.attributes['organization-scoped'], false, 'the rename did not open the pool to the organization');
    assert.deepEqual(renamed?.relationships?.['allowed-workspaces']?.data?.map((w) => w.id), [APP]);
    const agents = await list(world, `/agent-pools/${pool.id}/agents`);
    assert.deepEqual(agents.map((a) => a.attributes['name']), ['working']);
    const policies = await list(world, `/organizations/${ORG}/policies`);
    assert.deepEqual(policies.map((p) => p.attributes['name']).sort(), ['audit-only', 'deny-public', 'limit-size', 'require-tags', 'stray-foreign']);

    const again = await world.cli('--dry-run', dir, ['--prune', '--source', 'default', '--detailed-exitcode']);
    assert.equal(again.code, 0, again.stdout + again.stderr);
  });

  it('counts a delete of a resource someone removed between plan and apply as done', async () => {
    const world = fixture.world;
    const strayId = await createStray(world, 'stray-late', withMarker('also left behind', 'default'));
    const dir = await fixture.repo(repoWithRename());
    const api = new ApiClient({ baseUrl: world.url, token: world.token, logger: silentLogger() });
    try {
      const declared = await readDeclared(dir);
      const live = await readLive({ api, organization: ORG, declared, logger: silentLogger() });
      const plan = planChanges(declared, live, { source: 'default', ownership: 'marker', prune: true, allowEmpty: false, maxDeletes: 10, force: false, now: Date.now() });
      assert.deepEqual(plan.changes.map((c) => `${c.action} ${c.resource} ${c.name}`), ['delete policy stray-late']);
      assert.equal((await world.call('DELETE', `/policies/${strayId}`)).status, 204);
      const results = await applyPlan(plan, { api, organization: ORG, source: 'default', ownership: 'marker', logger: silentLogger() });
      assert.deepEqual(results.map((r) => [r.outcome, r.message]), [['applied', null]]);
    } finally {
      await api.close();
    }
  });

  it('plans an upload for a policy whose download answers 404, and the pass succeeds', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(repoWithRename());
    const [limitSize] = (await list(world, `/organizations/${ORG}/policies`)).filter((p) => p.attributes['name'] === 'limit-size');
    assert.ok(limitSize);
    const fault: FaultSpec = { kind: 'status', status: 404, method: 'GET', path: `^/policies/${limitSize.id}/download$`, count: 2 };
    await world.addFaults(fault);

    // Without the code cache, which knows this code from the earlier passes: the download must be asked.
    const plan = await world.cli('--dry-run', dir, ['--output', 'json', '--detailed-exitcode', '--no-cache']);
    assert.equal(plan.code, 2, plan.stdout + plan.stderr);
    const changes = (JSON.parse(plan.stdout) as { sources: Array<{ changes: Array<{ name: string; action: string; fields: Record<string, { before: unknown }> }> }> })
      .sources[0]!.changes;
    assert.deepEqual(changes.map((c) => [c.name, c.action, Object.keys(c.fields)]), [['limit-size', 'update', ['code']]]);
    assert.equal(changes[0]!.fields['code']!.before, null, 'no code on the server');

    await world.clearRequests();
    const run = await world.cli('--reconcile', dir, ['--no-cache']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const writes = (await world.writes()).map((r) => `${r.method} ${r.path} ${r.status}`);
    assert.deepEqual(writes, [`PUT /policies/${limitSize.id}/upload 200`]);
  });
});

describe('api.legacy-enforce against a server older than mid-2023', () => {
  const fixture = useWorld({ organizations: [seedOrganization()], behaviour: { legacyEnforce: true } });

  async function configFile(legacy: boolean, dir: string): Promise<string> {
    const file = join(await fixture.repo({}), 'sync.yaml');
    await writeFile(file, [
      `api: { url: "${fixture.world.url}", legacy-enforce: ${legacy} }`,
      'sources:',
      `  - { name: default, organization: ${ORG}, path: "${dir}" }`,
      '',
    ].join('\n'));
    return file;
  }

  it('sends and reads levels as enforce only, so a second plan is empty; without the setting the levels never converge', async () => {
    const world = fixture.world;
    const dir = await fixture.repo(repoWithRename());
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn' };
    const modern = await configFile(false, dir);
    const legacy = await configFile(true, dir);

    const wrong = await runCli(['--reconcile', '--config', modern], { env });
    assert.equal(wrong.code, 0, wrong.stderr);
    const drift = await runCli(['--dry-run', '--config', modern, '--output', 'json', '--detailed-exitcode'], { env });
    assert.equal(drift.code, 2, 'the old server ignored enforcement-level');
    const drifted = (JSON.parse(drift.stdout) as { sources: Array<{ changes: Array<{ name: string; fields: Record<string, unknown> }> }> }).sources[0]!.changes;
    assert.deepEqual(drifted.find((c) => c.name === 'require-tags')?.fields['enforcement-level'], { before: 'hard-mandatory', after: 'soft-mandatory' });

    await world.clearRequests();
    const right = await runCli(['--reconcile', '--config', legacy], { env });
    assert.equal(right.code, 0, right.stderr);
    const levels = Object.fromEntries((await world.organization()).policies.map((p) => [p['name'], p['enforcement-level']]));
    assert.deepEqual(levels, { 'require-tags': 'soft-mandatory', 'limit-size': 'advisory', 'audit-only': 'advisory', 'deny-public': 'mandatory' });
    const clean = await runCli(['--dry-run', '--config', legacy, '--detailed-exitcode'], { env });
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
  });
});
