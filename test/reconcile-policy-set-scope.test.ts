/**
 * A policy set's scope by name: workspaces and projects by name, `*` as prefix, suffix or both, ids accepted; a plain
 * name that matches nothing is a plan error naming the closest, a wildcard that matches nothing a warning.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORG } from './helpers/emulator.js';
import { useWorld } from './helpers/world.js';

const WORKSPACES = [
  { id: 'ws-AppProd000001', name: 'app-prod', project: 'prj-Payments00001' },
  { id: 'ws-AppStage00001', name: 'app-staging', project: 'prj-Payments00001' },
  { id: 'ws-DataProd00001', name: 'data-prod' },
  { id: 'ws-Sandbox000001', name: 'sandbox' },
  { id: 'ws-Staging000001', name: 'ws-staging' },
  { id: 'ws-WsTools000001', name: 'ws-tools' },
];
const PROJECTS = [{ id: 'prj-Payments00001', name: 'Payments' }, { id: 'prj-Platform00001', name: 'platform' }];

interface SetDoc { attributes: { name: string }; relationships: Record<string, { data?: Array<{ id: string }> }> }

describe('a policy set scoped by name', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 1, workspaces: WORKSPACES, projects: PROJECTS }] });

  it('resolves names and wildcards to ids, keeps them in step, and plans no change after', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/prod.yaml': 'workspaces: ["*-prod", ws-Sandbox000001]\nprojects: [payments]\nworkspace-exclusions: [data-prod]\n',
      'policies/p.native': 'main = rule { true }\n',
    });
    const plan = await world.cli('--dry-run', dir);
    assert.equal(plan.code, 0, plan.stdout + plan.stderr);
    // A reviewer reads the scope by name, and what each wildcard matched today, in every format.
    assert.match(plan.stdout, /\+ workspaces\s+= \["app-prod", "data-prod", "sandbox"\]\n\s+# "\*-prod" matched app-prod, data-prod today\n/);
    assert.match(plan.stdout, /\+ projects\s+= \["Payments"\]/);
    assert.doesNotMatch(plan.stdout, /ws-AppProd000001/);
    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.match(markdown.stdout, /`workspaces`: `\["app-prod", "data-prod", "sandbox"\]`\n\s+- "\\\*-prod" matched app-prod, data-prod today/);
    const json = JSON.parse((await world.cli('--dry-run', dir, ['--output', 'json'])).stdout) as { sources: Array<{ changes: Array<{ name: string; fields: Record<string, { after: unknown }>; scope?: unknown }> }> };
    const created = json.sources[0]!.changes.find((c) => c.name === 'prod')!;
    assert.deepEqual(created.fields['workspaces']?.after, ['ws-AppProd000001', 'ws-DataProd00001', 'ws-Sandbox000001'], 'the fields hold the ids the apply sends');
    assert.deepEqual(created.scope, {
      names: { 'prj-Payments00001': 'Payments', 'ws-AppProd000001': 'app-prod', 'ws-DataProd00001': 'data-prod', 'ws-Sandbox000001': 'sandbox' },
      wildcards: [{ field: 'workspaces', pattern: '*-prod', matched: ['app-prod', 'data-prod'] }],
    });
    const applied = await world.cli('--reconcile', dir);
    assert.equal(applied.code, 0, applied.stdout + applied.stderr);
    const sets = (await world.call('GET', `/organizations/${ORG}/policy-sets?include=workspaces,projects,workspace_exclusions`)).json as { data: SetDoc[] };
    const prod = sets.data.find((s) => s.attributes.name === 'prod')!;
    const ids = (rel: string) => (prod.relationships[rel]?.data ?? []).map((d) => d.id).sort();
    assert.deepEqual(ids('workspaces'), ['ws-AppProd000001', 'ws-DataProd00001', 'ws-Sandbox000001']);
    assert.deepEqual(ids('projects'), ['prj-Payments00001']);
    assert.deepEqual(ids('workspace-exclusions'), ['ws-DataProd00001']);
    const again = await world.cli('--dry-run', dir);
    assert.match(again.stdout, /No changes\. The API matches the declared repo\./, again.stdout);

    // A name changed in the repo moves the set: the new workspace added, the old one removed.
    const moved = await fixture.repo({
      'policy-sets/prod.yaml': 'workspaces: ["app-*"]\nprojects: [payments]\nworkspace-exclusions: [data-prod]\n',
      'policies/p.native': 'main = rule { true }\n',
    });
    const update = await world.cli('--reconcile', moved);
    assert.equal(update.code, 0, update.stdout + update.stderr);
    const after = ((await world.call('GET', `/organizations/${ORG}/policy-sets?include=workspaces`)).json as { data: SetDoc[] }).data.find((s) => s.attributes.name === 'prod')!;
    assert.deepEqual((after.relationships['workspaces']?.data ?? []).map((d) => d.id).sort(), ['ws-AppProd000001', 'ws-AppStage00001']);
  });

  it('a plain name that matches nothing is an error naming the closest; a wildcard that matches nothing a warning', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/typo.yaml': 'workspaces: [app-prd, "nothing-*"]\n',
      'policies/p.native': 'main = rule { true }\n',
    });
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /policy set "typo": workspaces "app-prd" names nothing in the organization; did you mean "app-prod"\?/);
    assert.match(run.stdout, /policy set "typo": workspaces "nothing-\*" matches nothing in the organization/);
    assert.deepEqual(await world.writes(), []);
  });

  it('a workspace named like an id, and a wildcard with an id\'s prefix, are names: the apply sends their ids', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({
      'policy-sets/named.yaml': 'workspaces: [ws-staging]\nworkspace-exclusions: ["ws-*"]\n',
      'policies/p.native': 'main = rule { true }\n',
    });
    const run = await world.cli('--reconcile', dir);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const set = ((await world.call('GET', `/organizations/${ORG}/policy-sets?include=workspaces,workspace_exclusions`)).json as { data: SetDoc[] }).data.find((s) => s.attributes.name === 'named')!;
    assert.deepEqual((set.relationships['workspaces']?.data ?? []).map((d) => d.id), ['ws-Staging000001']);
    assert.deepEqual((set.relationships['workspace-exclusions']?.data ?? []).map((d) => d.id).sort(), ['ws-Staging000001', 'ws-WsTools000001']);
  });

  it('an id that names no workspace is a plan error, and nothing is written', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policy-sets/gone.yaml': 'workspaces: [ws-Nothing0000001]\n', 'policies/p.native': 'main = rule { true }\n' });
    await world.clearRequests();
    const run = await world.cli('--reconcile', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /policy set "gone": workspaces "ws-Nothing0000001" names no workspace of the organization, by name or by id/);
    assert.deepEqual(await world.writes(), []);
  });

  it('global: true with workspaces is refused before any request', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policy-sets/both.yaml': 'global: true\nworkspaces: [app-prod]\n' });
    await world.clearRequests();
    const run = await world.cli('--validate', dir);
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.match(run.stdout, /policy-sets\/both\.yaml:1: global: true is not allowed with workspaces or projects/);
    assert.deepEqual(await world.requests(), []);
  });

  it('an agent pool\'s allowed workspaces by name and wildcard, and a plain name that matches nothing refused', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'agent-pools/builders.yaml': 'organization-scoped: false\nallowed-workspaces: ["app-*", sandbox]\n' });
    const run = await world.cli('--reconcile', dir, ['--source', 'pools']);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const pools = (await world.call('GET', `/organizations/${ORG}/agent-pools`)).json as { data: Array<{ attributes: { name: string }; relationships: Record<string, { data?: Array<{ id: string }> }> }> };
    const builders = pools.data.find((p) => p.attributes.name === 'builders')!;
    assert.deepEqual((builders.relationships['allowed-workspaces']?.data ?? []).map((d) => d.id).sort(), ['ws-AppProd000001', 'ws-AppStage00001', 'ws-Sandbox000001']);
    // The policies of the cases above are kept (not declared here): no change all the same.
    assert.match((await world.cli('--dry-run', dir, ['--source', 'pools'])).stdout, /^ {2}No changes\.$/m);
    const typo = await fixture.repo({ 'agent-pools/builders.yaml': 'organization-scoped: false\nallowed-workspaces: [sandbx]\n' });
    const refused = await world.cli('--dry-run', typo, ['--source', 'pools']);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stdout, /agent pool "builders": allowed-workspaces "sandbx" names nothing in the organization; did you mean "sandbox"\?/);
  });
});
