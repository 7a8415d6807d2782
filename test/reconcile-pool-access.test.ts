import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from './helpers/cli.js';
import { ORG, WORKSPACES } from './helpers/emulator.js';
import { useWorld, type World } from './helpers/world.js';

const APP = WORKSPACES[0]!.id;
const DATA = WORKSPACES[1]!.id;

async function poolDocument(world: World, name: string): Promise<{ id: string; relationships: Record<string, { data: Array<{ id: string }> }> }> {
  const list = await world.call('GET', `/organizations/${ORG}/agent-pools`);
  const found = (list.json.data as Array<{ id: string; attributes: { name: string }; relationships: Record<string, { data: Array<{ id: string }> }> }>).find((p) => p.attributes.name === name);
  assert.ok(found, `pool ${name} missing`);
  return found;
}

const ids = (relationship: { data: Array<{ id: string }> } | undefined) => (relationship?.data ?? []).map((r) => r.id).sort();

const PROJECTS = [{ id: 'prj-Alpha0001', name: 'alpha' }, { id: 'prj-Beta00002', name: 'beta' }, { id: 'prj-Other0003', name: 'other' }];

describe('pool allowed-projects and excluded-workspaces', () => {
  const fixture = useWorld({ organizations: [{ name: ORG, maxAgentPools: 2, workspaces: WORKSPACES, projects: PROJECTS, policySets: [] }] });

  it('are created, shown as differing in every format, set back, and kept when not declared', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'agent-pools/build.yaml': `organization-scoped: false\nallowed-projects: [prj-Alpha0001, prj-Beta00002]\nexcluded-workspaces: [${DATA}]\n` });
    const created = await world.cli('--reconcile', dir);
    assert.equal(created.code, 0, created.stderr + created.stdout);
    let pool = await poolDocument(world, 'build');
    assert.deepEqual(ids(pool.relationships['allowed-projects']), ['prj-Alpha0001', 'prj-Beta00002']);
    assert.deepEqual(ids(pool.relationships['excluded-workspaces']), [DATA]);

    // Changed behind the tool's back.
    const patched = await world.call('PATCH', `/agent-pools/${pool.id}`, {
      body: { data: { type: 'agent-pools', attributes: { 'organization-scoped': false }, relationships: { 'allowed-projects': { data: [{ id: 'prj-Other0003', type: 'projects' }] }, 'excluded-workspaces': { data: [] } } } },
    });
    assert.equal(patched.status, 200, patched.text);
    const text = await world.cli('--dry-run', dir, ['--detailed-exitcode']);
    assert.equal(text.code, 2, text.stdout + text.stderr);
    assert.match(text.stdout, /allowed-projects/);
    assert.match(text.stdout, /excluded-workspaces/);
    const json = JSON.parse((await world.cli('--dry-run', dir, ['--output', 'json'])).stdout);
    assert.deepEqual(json.sources[0].changes[0].fields, {
      'allowed-projects': { before: ['prj-Other0003'], after: ['prj-Alpha0001', 'prj-Beta00002'] },
      'excluded-workspaces': { before: [], after: [DATA] },
    });
    assert.equal(json.sources[0].changes[0].reason, 'differs in allowed-projects, excluded-workspaces');
    const markdown = await world.cli('--dry-run', dir, ['--output', 'markdown']);
    assert.match(markdown.stdout, /allowed-projects/);

    const fixed = await world.cli('--reconcile', dir);
    assert.equal(fixed.code, 0, fixed.stderr + fixed.stdout);
    pool = await poolDocument(world, 'build');
    assert.deepEqual(ids(pool.relationships['allowed-projects']), ['prj-Alpha0001', 'prj-Beta00002']);
    assert.deepEqual(ids(pool.relationships['excluded-workspaces']), [DATA]);

    // Not declared: not managed, whatever is live stays; a scope change leaves them as they are.
    const unmanaged = await fixture.repo({ 'agent-pools/build.yaml': 'organization-scoped: true\n' });
    const scoped = await world.cli('--reconcile', unmanaged);
    assert.equal(scoped.code, 0, scoped.stderr + scoped.stdout);
    pool = await poolDocument(world, 'build');
    assert.deepEqual(ids(pool.relationships['allowed-projects']), ['prj-Alpha0001', 'prj-Beta00002']);
    assert.equal((await world.cli('--dry-run', unmanaged, ['--detailed-exitcode'])).code, 0);
  });
});

describe('a pool that workspaces use', () => {
  const fixture = useWorld({
    organizations: [{ name: ORG, maxAgentPools: 2, workspaces: WORKSPACES, policySets: [], agentPools: [{ name: 'busy', workspaces: [APP] }, { name: 'idle' }] }],
  });

  it('the emulator refuses to delete it with 422', async () => {
    const { world } = fixture;
    const busy = await poolDocument(world, 'busy');
    assert.deepEqual(ids(busy.relationships['workspaces']), [APP]);
    const refused = await world.call('DELETE', `/agent-pools/${busy.id}`);
    assert.equal(refused.status, 422);
    assert.match(refused.text, /still being used by workspaces/);
  });

  it('is never planned for deletion: a plan error names it and its workspaces, and nothing is written', async () => {
    const { world } = fixture;
    const dir = await fixture.repo({ 'policies/p.native': 'main = rule { true }\n' });
    const file = join(dir, 'config.yaml');
    await writeFile(file, ['api:', `  url: ${world.url}`, 'sources:', '  - name: default', `    organization: ${ORG}`, `    path: ${dir}`, '    ownership: organization', '    prune: true', ''].join('\n'));
    const env = { API_TOKEN: world.token, LOG_LEVEL: 'warn', STATE_DIR: world.stateDir };
    const dry = await runCli(['--config', file, '--dry-run', '--output', 'json'], { env });
    assert.equal(dry.code, 1, dry.stderr);
    const source = JSON.parse(dry.stdout).sources[0];
    assert.deepEqual(source.changes.filter((c: { action: string }) => c.action === 'delete').map((c: { name: string }) => c.name), ['idle']);
    assert.deepEqual(source.errors, [
      `agent-pool "busy" is not declared and prune would delete it, but workspaces use it (${APP}); the API refuses to delete a pool in use. Move those workspaces to another pool, or declare the pool.`,
    ]);
    await world.clearRequests();
    const applied = await runCli(['--config', file, '--reconcile'], { env });
    assert.equal(applied.code, 1);
    assert.deepEqual(await world.writes(), []);
  });
});
